"""Response builders and Basic auth shared by the fake Overlord and Coordinator handlers."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import web

if TYPE_CHECKING:
    from druid_ingest.testing.fake_state import ClusterState

__all__ = [
    "UNSECURED",
    "Ctx",
    "FakeSettings",
    "Forbidden",
    "RecordedRequest",
    "authenticate",
    "druid_error",
    "empty",
    "forbidden",
    "gzip_if_accepted",
    "jetty_page",
    "json_response",
    "legacy_error",
    "proxy_html",
    "require_write",
    "text_response",
]


@dataclass
class RecordedRequest:
    method: str
    path: str  # decoded path, no query
    raw_path: str  # path as sent (percent-encoding kept), no query
    query: dict[str, str]  # last value wins; flags like ``?full`` map to ""
    headers: dict[str, str]
    body: bytes
    time: float
    query_string: str = ""
    json: Any = field(default=None)


class FakeSettings(Protocol):
    """The knobs of :class:`~.fake_server.FakeDruid` a handler reads (the handlers never see the server itself,
    so that the server imports them and not the other way round)."""

    broker_lag: float
    duplicate_shape: str
    insert_delay: float


@dataclass
class Ctx:
    """What a route handler gets: the fake's settings, its state, the recorded request, path params, the role."""

    fake: FakeSettings
    state: ClusterState
    rec: RecordedRequest
    params: dict[str, str] = field(default_factory=dict)
    role: str | None = None  # None = auth disabled; else "read" | "write"

    @property
    def query(self) -> dict[str, str]:
        return self.rec.query


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, text=json.dumps(body), content_type="application/json")


#: JSON bodies up to this size go uncompressed (real Druid's Jetty gzips even a 4-byte ``true``; skipping tiny
#: bodies keeps the fake's small answers byte-for-byte readable and changes a wire count by < 25 bytes each)
GZIP_MIN_BYTES = 256


def gzip_if_accepted(request: web.Request, resp: web.StreamResponse) -> web.StreamResponse:
    """Gzip a JSON answer when the client accepts it, as Druid's Jetty GzipHandler does (Router and services,
    GET and POST: a 2 KB served-ids listing arrives as ~200 bytes). Only the transfer encoding changes; clients
    that send no ``Accept-Encoding: gzip`` get the same bytes as before."""
    accepted = "gzip" in request.headers.get("Accept-Encoding", "").lower()
    if accepted and isinstance(resp, web.Response) and resp.content_type == "application/json" \
            and isinstance(resp.body, bytes) and len(resp.body) > GZIP_MIN_BYTES:
        resp.enable_compression(web.ContentCoding.gzip)
        resp.headers["Vary"] = "Accept-Encoding"
    return resp


def text_response(text: str, status: int, content_type: str = "text/plain") -> web.Response:
    return web.Response(status=status, text=text, content_type=content_type)


def empty(status: int) -> web.Response:
    return web.Response(status=status)


def druid_error(status: int, error_code: str, category: str, message: str, persona: str = "USER") -> web.Response:
    """druid-contract §submit: DruidException -> ErrorResponse.getAsMap()."""
    return json_response({"error": "druidException", "errorCode": error_code, "persona": persona,
                          "category": category, "errorMessage": message, "context": {}}, status)


def legacy_error(status: int, message: str) -> web.Response:
    """druid-contract §submit: pre-DruidException mappers (CustomExceptionMapper etc.): ``{"error": "<message>"}``."""
    return json_response({"error": message}, status)


_REASONS = {401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed", 500: "Server Error",
            503: "Service Unavailable"}


def jetty_page(status: int, uri: str, message: str | None = None) -> web.Response:
    """Jetty ErrorHandler page (druid-contract §submit JSON syntax errors, RedirectFilter sendError(503),
    druid-contract §auth-tls sendError(401)); a ``message`` (Jetty 12's "Invalid SNI") titles it, as Jetty's does."""
    reason = _REASONS.get(status, "Error")
    msg = message or reason
    html = (
        "<html>\n<head>\n<meta http-equiv=\"Content-Type\" content=\"text/html;charset=ISO-8859-1\"/>\n"
        f"<title>Error {status} {msg}</title>\n</head>\n<body><h2>HTTP ERROR {status} {msg}</h2>\n"
        f"<table>\n<tr><th>URI:</th><td>{uri}</td></tr>\n<tr><th>STATUS:</th><td>{status}</td></tr>\n"
        f"<tr><th>MESSAGE:</th><td>{msg}</td></tr>\n<tr><th>SERVLET:</th><td>default</td></tr>\n"
        "</table>\n\n</body>\n</html>\n"
    )
    return web.Response(status=status, text=html, content_type="text/html", charset="iso-8859-1")


def proxy_html(status: int) -> web.Response:
    """A reverse proxy's error page (nginx style), for faults of kind "html"."""
    reason = {502: "Bad Gateway", 503: "Service Temporarily Unavailable", 504: "Gateway Time-out"}.get(
        status, "Error")
    html = (f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n<center><h1>{status} "
            f"{reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
    return web.Response(status=status, text=html, content_type="text/html")


def forbidden() -> web.Response:
    """druid-contract §auth-tls: authenticated but not permitted -> 403 ForbiddenExceptionMapper body."""
    return json_response({"Access-Check-Result": "Unauthorized"}, 403)


class Forbidden(Exception):
    pass


def require_write(ctx: Ctx) -> None:
    """druid-contract §auth-tls: DATASOURCE WRITE / STATE WRITE; a "read" user is refused."""
    if ctx.role is not None and ctx.role != "write":
        raise Forbidden


# druid-contract §auth-tls: unsecured paths (CliOverlord.UNSECURED_PATHS, CoordinatorJettyServerInitializer).
UNSECURED = ("/status/health", "/druid/indexer/v1/isLeader", "/druid/coordinator/v1/isLeader")


def authenticate(users: dict[str, tuple[str, str]], header: str | None, uri: str) -> tuple[str | None,
                                                                                           web.Response | None]:
    """-> (role, None) or (None, 401 response) per druid-contract §auth-tls druid-basic-security."""
    if not header or not header.startswith("Basic "):
        # No authenticator succeeded: PreResponseAuthorizationCheckFilter -> 401 JSON + WWW-Authenticate.
        resp = json_response({"error": "Unauthorized request", "errorMessage": None, "errorClass": None,
                              "host": None}, 401)
        resp.headers["WWW-Authenticate"] = "Basic"
        return None, resp
    try:
        user, _, password = base64.b64decode(header[6:].strip(), validate=True).decode().partition(":")
        ok = _ == ":" and user in users and users[user][0] == password
    except (ValueError, UnicodeDecodeError):
        ok = False
    if not ok:
        # Undecodable header, no ':' or bad credentials: BasicHTTPAuthenticator sendError(401), a Jetty page.
        return None, jetty_page(401, uri)
    return users[user][1], None
