"""Words for the failures a user can fix themselves: an untrusted certificate, a wrong login, a missing
permission, nothing listening on the port. Pure functions, shared by both transports and the error mapping, so
the sync client, the async client, the Airflow "Test" button and the Dagster face say the same thing.

Each message names the host or call, the cause, and what to change. None of them ever holds a credential: the
inputs are URLs without user-info, request paths, and server or OS reason texts.
"""

from __future__ import annotations

import re
import ssl
from http import HTTPStatus
from typing import Literal
from urllib.parse import urlsplit

from druid_ingest.errors import DruidConnectionError, DruidError, DruidProxyError, DruidTimeoutError, DruidTLSError

__all__ = [
    "TransportFailure",
    "auth_message",
    "bad_request_hint",
    "client_cert_refusal",
    "connect_message",
    "hostport",
    "needed_permission",
    "proxy_refused_message",
    "ssl_reason",
    "tls_message",
    "transport_error",
    "tunnel_refusal",
]

# (method, path regex, permission Druid checks); druid-contract §auth-tls
_PERMISSIONS: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (method, re.compile(pattern), permission)
    for method, pattern, permission in (
        ("POST", r"/druid/indexer/v1/task$", "WRITE on the datasource (DATASOURCE WRITE)"),
        ("POST", r"/druid/indexer/v1/task/[^/]+/shutdown$", "WRITE on the task's datasource (DATASOURCE WRITE)"),
        ("POST", r"/druid/indexer/v1/taskStatus$", "STATE WRITE"),
        ("POST", r"/druid/indexer/v1/activeLocks$", "STATE WRITE"),
        ("GET", r"/druid/indexer/v1/workers$", "STATE READ"),
        ("GET", r"/druid/indexer/v1/task/", "READ on the task's datasource (DATASOURCE READ)"),
        ("GET", r"/druid/indexer/v1/tasks$", "READ on the datasource (DATASOURCE READ)"),
        ("GET", r"/druid/coordinator/v1/", "READ on the datasource (DATASOURCE READ)"),
        ("POST", r"/druid/v2/sql", "READ on every datasource or system table the query reads"),
    )
)


def hostport(url: str) -> str:
    """``host:port`` of a URL (default port filled in), for naming where something failed."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.hostname or '?'}:{port}"


def needed_permission(method: str, path: str) -> str | None:
    """The Druid permission a call needs, when it is one this package makes."""
    path = path.split("?", 1)[0]
    for want, pattern, permission in _PERMISSIONS:
        if method.upper() == want and pattern.search(path):
            return permission
    return None


_TOKEN_FIELD = "ClusterConfig.token; in Airflow the connection's Password with extra auth=bearer"


def auth_message(
    status: int, method: str, path: str, sent_auth: bool, server_said: str, scheme: str = "Basic",
    challenge: str = "",
) -> str:
    """401: the login is wrong or missing; 403: the login is fine but the user may not do this.

    ``challenge``: the 401's WWW-Authenticate; a ``Bearer`` one (RFC 6750) says a token is what the server wants."""
    said = f' (server said: "{server_said}")' if server_said else ""
    wants_token = challenge.strip().lower().startswith("bearer")
    if status == 401:
        if wants_token and not sent_auth:
            return (f"Druid requires a bearer token and none was sent{said}: the server asks for one "
                    f"(WWW-Authenticate: Bearer); set the token ({_TOKEN_FIELD})")
        if wants_token and scheme != "Bearer":
            return (f"Druid rejected the login: the user name and password were sent and refused{said}; the "
                    "server asks for a bearer token (WWW-Authenticate: Bearer), not a user name and password: set "
                    f"the token ({_TOKEN_FIELD})")
        if sent_auth and scheme == "Bearer":
            return (f"Druid rejected the bearer token: it was sent and refused{said}; check the token "
                    "(ClusterConfig.token; in Airflow the connection's Password with extra auth=bearer): it may "
                    "have expired or be meant for another audience")
        if sent_auth:
            return (f"Druid rejected the login: the user name and password were sent and refused{said}; check the "
                    "connection's Login and Password (Druid basic auth)")
        return (f"Druid requires a login and none was sent{said}: set Login and Password on the connection (for "
                "a bearer token: the token in Password and extra auth=bearer), or username/password or token in "
                "ClusterConfig")
    need = needed_permission(method, path)
    what = f"{method} {path}" + (f", which needs {need}" if need else "")
    return (f"Druid refused the request: the login is valid but this user is not permitted to call {what}{said}; "
            "ask a Druid administrator to grant it, or use a user that has it")


_CERT_FIELDS = "client_cert and client_key extras (ClusterConfig.client_cert/client_key)"


def _no_client_cert(where: str, said: str) -> str:
    return (f"{where} requires a TLS client certificate and none was sent{said}: set the connection's "
            f"{_CERT_FIELDS} to a PEM certificate and key issued by the CA that server trusts")


def _client_cert_refused(where: str, said: str) -> str:
    return (f"{where} refused the TLS client certificate{said}: the certificate in the {_CERT_FIELDS} is not "
            "issued by a CA that server trusts, or has expired; use one from the CA the server checks clients "
            "against")


# nginx's ssl_verify_client answers 400 with these page titles (ngx_http_request.c) after the handshake
_NGINX_NO_CERT = "no required ssl certificate was sent"
_NGINX_BAD_CERT = "the ssl certificate error"


def client_cert_refusal(server_said: str, url: str) -> str | None:
    """The words for a 400 that is really a TLS client-certificate refusal by a gateway (nginx); None otherwise."""
    low = server_said.lower()
    said = f' (server said: "{server_said}")'
    if _NGINX_NO_CERT in low:
        return _no_client_cert(hostport(url), said)
    if _NGINX_BAD_CERT in low:
        return _client_cert_refused(hostport(url), said)
    return None


_PEER_REFUSED = ("unknown_ca", "unknown ca", "bad_certificate", "bad certificate", "certificate_unknown",
                 "certificate unknown", "certificate_expired", "certificate expired")


def tls_message(reason: str, url: str) -> str:
    """A failed TLS handshake, by cause. ``reason`` is the SSL library's text (e.g. CERTIFICATE_VERIFY_FAILED)."""
    where = hostport(url)
    low = reason.lower()
    # alerts the server sends about OUR certificate (Jetty with needClientAuth, Python's ssl): not its own
    if "certificate_required" in low or "certificate required" in low:
        return _no_client_cert(where, f" ({reason})")
    if any(f"alert{sep}{what}" in low for sep in "_ " for what in _PEER_REFUSED):
        return _client_cert_refused(where, f" ({reason})")
    if "mismatch" in low or "doesn't match" in low or "not valid for" in low:
        return (f"the TLS certificate of {where} does not name that host ({reason}): connect with a host name the "
                "certificate lists in its subjectAltName, or get a certificate for this name")
    if "expired" in low:
        return f"the TLS certificate of {where} has expired ({reason}): the server needs a renewed certificate"
    if "certificate_verify_failed" in low or "certificate verify failed" in low or "self-signed" in low \
            or "self signed" in low or "issuer" in low:
        return (f"the TLS certificate of {where} is not signed by a CA this client trusts ({reason}): set the "
                "connection's ca_bundle extra (ClusterConfig.ca_bundle) to the PEM file of the CA that signed it; "
                "verify=false switches checking off (only for testing)")
    if "wrong_version_number" in low or "wrong version number" in low or "record layer failure" in low:
        return (f"{where} does not speak TLS ({reason}): use http:// for a plaintext port, or the service's TLS "
                "port (Router 9088 by default) with https://")
    return f"the TLS handshake with {where} failed ({reason})"


_ERRNO = re.compile(r"\[Errno -?\d+\] ([^'\")\]]+)")


def connect_message(reason: str, url: str, proxy: str | None = None, client_cert: bool = False) -> str:
    """No connection (refused, unknown host, unreachable); ``reason`` is the OS/library text.

    ``proxy``: the proxy URL when it is the proxy that could not be reached (so the fix names the proxy field);
    ``client_cert``: whether a client certificate was configured (a TLS hang-up then means it was refused)."""
    where = hostport(url)
    found = _ERRNO.search(reason)
    cause = (found.group(1) if found else reason).strip()
    low = cause.lower()
    if proxy is not None:
        return (f"could not reach the proxy {hostport(proxy)} to call {where} ({cause}); check the connection's "
                "proxy extra (ClusterConfig.proxy) and that the proxy is running, or drop it to connect directly")
    if url.lower().startswith("https:") and ("disconnected" in low or "without response" in low
                                           or "reset by peer" in low):
        if client_cert:
            return (f"{where} closed the TLS connection without an answer ({cause}): it most likely refused the "
                    f"TLS client certificate; the certificate in the {_CERT_FIELDS} is not issued by a CA that "
                    "server trusts, or has expired")
        return (f"{where} closed the TLS connection without an answer ({cause}); if it requires a TLS client "
                "certificate, set the connection's client_cert and client_key extras (ClusterConfig.client_cert/"
                "client_key) to a certificate its CA trusts")
    if "refused" in low:
        return (f"could not connect to {where}: connection refused, nothing listens there; check the host and port "
                "of the connection and that Druid (or the proxy in front of it) is running")
    if "name or service not known" in low or "nodename nor servname" in low or "name resolution" in low \
            or "no address associated" in low:
        return f"could not connect to {where}: the host name does not resolve ({cause}); check the host"
    return f"could not connect to {where}: {cause}"


def proxy_refused_message(reason: str, url: str, proxy: str | None) -> str:
    """The proxy answered the CONNECT with an error status (``reason``: e.g. ``403 Forbidden``); ``proxy`` None:
    the environment's (trust_env)."""
    login = ("; it wants a login: put it in the proxy URL (http://user:password@proxy:3128)"
             if reason.startswith("407") else "")
    if proxy is None:
        return (f"the proxy from the environment (HTTPS_PROXY/HTTP_PROXY, read because trust_env is on) refused to "
                f"open a tunnel to {hostport(url)} ({reason}){login}; fix that proxy's rules, set NO_PROXY for this "
                "host, or set the connection's proxy extra (ClusterConfig.proxy) to one that allows it")
    return (f"the proxy {hostport(proxy)} refused to open a tunnel to {hostport(url)} ({reason}){login}; check the "
            "connection's proxy extra (ClusterConfig.proxy): the proxy must allow CONNECT to that host and port, "
            "or drop the proxy to connect directly")


def proxy_forward_refusal(status: int, proxy: str, url: str) -> str:
    """A proxy forwarding a plain-http call answered it itself: 403 (its rules) or 407 (it wants a login).
    ``proxy``: its ``host:port``, '' when it is not the configured one (a 407 can only come from a proxy)."""
    reason = f"{status} {HTTPStatus(status).phrase}"
    why = (": it wants a login: put it in the proxy URL (http://user:password@proxy:3128)" if status == 407 else
           ": its rules do not let this host through")
    who = f"the proxy {proxy}" if proxy else "a proxy between this client and Druid"
    return (f"{who} refused to forward the call to {hostport(url)} ({reason}){why}; check the connection's proxy "
            "extra (ClusterConfig.proxy) and the proxy's rules, or drop the proxy to connect directly")


TransportFailure = Literal["tls", "timeout", "connect", "proxy", "other"]


_TUNNEL = re.compile(r"Tunnel connection failed: (\d{3}[^'\")\]]*)")


def tunnel_refusal(text: str) -> str | None:
    """The status of a refused CONNECT inside requests' ProxyError text (``403 Forbidden``), or None."""
    found = _TUNNEL.search(text)
    return found.group(1).strip() if found else None


def transport_error(kind: TransportFailure, reason: str, method: str, url: str,
                    proxy: str | None = None, client_cert: bool = False) -> DruidError:
    """The one mapping from a transport's failure to the taxonomy, for both clients: each transport only sorts its
    library's exceptions into ``kind`` and passes the library's text as ``reason``.

    ``proxy``: the configured proxy, when the failure is the proxy's (``kind`` "proxy": it answered the CONNECT
    with ``reason``, an HTTP status line; a 5xx is retried); ``client_cert``: whether one was configured."""
    if kind == "tls":
        return DruidTLSError(tls_message(reason, url), method=method, url=url)
    if kind == "timeout":
        return DruidTimeoutError(f"timed out: {reason}" if reason else "timed out", method=method, url=url)
    if kind == "proxy":
        message = proxy_refused_message(reason, url, proxy)
        if reason[:1] == "5":
            return DruidConnectionError(message, method=method, url=url)
        return DruidProxyError(message, method=method, url=url)
    if kind == "connect":
        return DruidConnectionError(connect_message(reason, url, proxy, client_cert), method=method, url=url)
    return DruidConnectionError(f"connection failed: {reason}", method=method, url=url)


def bad_request_hint(server_said: str, url: str) -> str:
    """Extra words for a 400 that is really a connection mistake: plain HTTP sent to a TLS port, or a host the
    certificate does not name (Druid 35+ checks it: apache/druid #18424, #18623)."""
    if "plain http request was sent to https port" in server_said.lower():
        return f"; {hostport(url)} is a TLS port: use https:// in the connection"
    if "invalid sni" in server_said.lower():
        return (f"; the server's certificate does not name the host of {hostport(url)}, and Druid 35 and later "
                "(Jetty 12) refuse such a request: connect with a host name the certificate holds")
    return ""


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and everything it wraps (requests, urllib3 and aiohttp nest the ssl error differently)."""
    seen: list[BaseException] = []
    todo: list[object] = [exc]
    while todo and len(seen) < 20:
        item = todo.pop(0)
        if not isinstance(item, BaseException) or any(item is s for s in seen):
            continue
        seen.append(item)
        todo.extend(getattr(item, name, None) for name in ("certificate_error", "os_error", "reason"))
        todo.extend(item.args)
        todo.extend((item.__cause__, item.__context__))
    return seen


def ssl_reason(exc: BaseException) -> str:
    """The SSL library's own reason (``CERTIFICATE_VERIFY_FAILED: self-signed certificate in certificate
    chain``), found inside whatever the HTTP library wrapped it in."""
    causes = _causes(exc)
    for cause in causes:  # aiohttp's certificate error subclasses ssl's without its attributes: ask politely
        verify_message = getattr(cause, "verify_message", None)
        if isinstance(cause, ssl.SSLCertVerificationError) and verify_message:
            return f"{getattr(cause, 'reason', None) or 'CERTIFICATE_VERIFY_FAILED'}: {verify_message}"
    for cause in causes:
        reason = getattr(cause, "reason", None)
        if isinstance(cause, ssl.SSLError) and isinstance(reason, str) and reason:
            return reason
    return type(exc).__name__
