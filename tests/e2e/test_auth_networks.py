"""Bearer tokens, TLS client certificates and proxies, through the real nginx (and squid) of dev/nginx in front of
the real Druid, for both clients (requests and aiohttp). Each failure pins the exact text a user reads; nginx's
and squid's own access logs prove what reached them (never a token: nginx logs only the scheme).
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.errors import (
    DruidAuthError,
    DruidConnectionError,
    DruidError,
    DruidProxyError,
    DruidTLSError,
    DruidUsageError,
)
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from . import nginx_harness
from .test_tls_auth import free_port, hostport, raised, run_async, sync_call

pytestmark = pytest.mark.timeout(300)
CALLS = {"sync": sync_call, "async": run_async}
WORKERS = "/druid/indexer/v1/workers"
#: a refused port is retried otherwise; one attempt shows the text a user reads at the end
ONCE = RetryPolicy(max_attempts=1)
TOKEN_FIX = "set the token (ClusterConfig.token; in Airflow the connection's Password with extra auth=bearer)"
CERT_FIELDS = "client_cert and client_key extras (ClusterConfig.client_cert/client_key)"


@pytest.fixture(scope="module")
def nginx() -> nginx_harness.Nginx:
    return nginx_harness.load()


def cfg(url: str, **kw: Any) -> ClusterConfig:
    return ClusterConfig(url=url, read_timeout=60, **kw)


def tls(nginx: nginx_harness.Nginx, url: str, **kw: Any) -> ClusterConfig:
    return cfg(url, ca_bundle=nginx.ca_bundle, **kw)


def admin(nginx: nginx_harness.Nginx, **kw: Any) -> ClusterConfig:
    return tls(nginx, nginx.tls_url, username=nginx.admin[0], password=nginx.admin[1], **kw)


def at(url: str, status: int | None = None) -> str:
    """The tail DruidError adds to every message: the status and the call."""
    return (f" HTTP {status}" if status else "") + f" [GET {url}{WORKERS}]"


# ---- bearer tokens -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("client", sorted(CALLS))
def test_the_right_token_is_accepted(nginx, client):
    mark = nginx.tokens.mark()
    capacity = CALLS[client](tls(nginx, nginx.token_url, token=nginx.token), "capacity")
    assert capacity.total_slots >= 1
    hits = nginx.tokens.since(mark)
    assert [(h.path, h.status, h.scheme) for h in hits] == [(WORKERS, 200, "bearer")]


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_wrong_token_is_a_clear_401_at_once(nginx, client):
    mark = nginx.tokens.mark()
    error, took = raised(CALLS[client], tls(nginx, nginx.token_url, token="not-" + nginx.token), "capacity")
    assert isinstance(error, DruidAuthError) and error.status == 401
    assert str(error) == (
        'Druid rejected the bearer token: it was sent and refused (server said: "401 Authorization Required"); '
        "check the token (ClusterConfig.token; in Airflow the connection's Password with extra auth=bearer): it "
        "may have expired or be meant for another audience" + at(nginx.token_url, 401))
    assert [(h.status, h.scheme) for h in nginx.tokens.since(mark)] == [(401, "bearer")], "no retries on 401"
    assert took < 1.0


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_missing_token_says_the_server_wants_one(nginx, client):
    mark = nginx.tokens.mark()
    error, _ = raised(CALLS[client], tls(nginx, nginx.token_url), "capacity")
    assert isinstance(error, DruidAuthError) and error.status == 401
    assert str(error) == (
        'Druid requires a bearer token and none was sent (server said: "401 Authorization Required"): the server '
        f"asks for one (WWW-Authenticate: Bearer); {TOKEN_FIX}" + at(nginx.token_url, 401))
    assert [(h.status, h.scheme) for h in nginx.tokens.since(mark)] == [(401, "none")]


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_password_sent_to_the_token_server_says_use_a_token(nginx, client):
    config = tls(nginx, nginx.token_url, username=nginx.admin[0], password=nginx.admin[1])
    error, _ = raised(CALLS[client], config, "capacity")
    assert isinstance(error, DruidAuthError) and error.status == 401
    assert str(error) == (
        "Druid rejected the login: the user name and password were sent and refused (server said: \"401 "
        "Authorization Required\"); the server asks for a bearer token (WWW-Authenticate: Bearer), not a user name "
        f"and password: {TOKEN_FIX}" + at(nginx.token_url, 401))


def test_the_token_never_reaches_a_log_or_an_exception(nginx, caplog):
    caplog.set_level(logging.DEBUG)
    texts = []
    for call in CALLS.values():
        assert call(tls(nginx, nginx.token_url, token=nginx.token), "capacity").total_slots >= 1
        config = tls(nginx, nginx.redirect_url, token=nginx.token)  # a 307 to another host
        texts.append(repr(config))
        with pytest.raises(DruidError) as info:
            call(config, "capacity")
        texts += [str(info.value), repr(info.value), "".join(traceback.format_exception(info.value))]
    texts.append(caplog.text)
    texts += [Path(p).read_text() for p in nginx.log_files]
    assert [t[:200] for t in texts if nginx.token in t] == []
    assert any("trusted_hosts" in t for t in texts)  # the redirect did refuse to carry the token


# ---- TLS client certificates ---------------------------------------------------------------------------------


@pytest.mark.parametrize("client", sorted(CALLS))
def test_the_client_certificate_is_verified_and_accepted(nginx, client):
    mark = nginx.mtls.mark()
    config = tls(nginx, nginx.mtls_url, client_cert=nginx.client_cert, client_key=nginx.client_key)
    assert CALLS[client](config, "capacity").total_slots >= 1
    assert [(h.path, h.status, h.client) for h in nginx.mtls.since(mark)] == [(WORKERS, 200, "SUCCESS")]


@pytest.mark.parametrize("client", sorted(CALLS))
def test_no_client_certificate_is_a_clear_error_naming_client_cert(nginx, client):
    mark = nginx.mtls.mark()
    error, took = raised(CALLS[client], tls(nginx, nginx.mtls_url), "capacity")
    assert isinstance(error, DruidTLSError) and error.status == 400
    assert str(error) == (
        f'{hostport(nginx.mtls_url)} requires a TLS client certificate and none was sent (server said: "400 No '
        f'required SSL certificate was sent"): set the connection\'s {CERT_FIELDS} to a PEM certificate and key '
        "issued by the CA that server trusts" + at(nginx.mtls_url, 400))
    assert [(h.status, h.client) for h in nginx.mtls.since(mark)] == [(400, "NONE")], "fatal: one request"
    assert took < 1.0


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_certificate_from_another_ca_is_refused_naming_client_cert(nginx, client):
    mark = nginx.mtls.mark()
    config = tls(nginx, nginx.mtls_url, client_cert=nginx.other_client_cert, client_key=nginx.other_client_key)
    error, _ = raised(CALLS[client], config, "capacity")
    assert isinstance(error, DruidTLSError) and error.status == 400
    assert str(error) == (
        f'{hostport(nginx.mtls_url)} refused the TLS client certificate (server said: "400 The SSL certificate '
        f'error"): the certificate in the {CERT_FIELDS} is not issued by a CA that server trusts, or has expired; '
        "use one from the CA the server checks clients against" + at(nginx.mtls_url, 400))
    hits = nginx.mtls.since(mark)
    assert [h.status for h in hits] == [400] and hits[0].client.startswith("FAILED:"), hits


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_key_that_does_not_belong_to_the_certificate_fails_before_any_call(nginx, client):
    mark = nginx.mtls.mark()
    config = tls(nginx, nginx.mtls_url, client_cert=nginx.client_cert, client_key=nginx.other_client_key)
    with pytest.raises(DruidUsageError) as info:
        CALLS[client](config, "capacity")
    assert str(info.value) == (
        f"ClusterConfig `client_key` {nginx.other_client_key!r} is not the private key of `client_cert` "
        f"{nginx.client_cert!r} (KEY_VALUES_MISMATCH): give the key the certificate was issued for")
    assert nginx.mtls.since(mark) == []


# ---- proxies ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("client", sorted(CALLS))
def test_an_http_url_goes_through_the_proxy_when_set_and_not_when_unset(nginx, client):
    mark = nginx.proxied.mark()
    assert CALLS[client](cfg(nginx.upstream_url, proxy=nginx.proxy_url), "capacity").total_slots >= 1
    # the proxy saw the absolute-URI request a client sends to a proxy
    assert [(h.method, h.path, h.status) for h in nginx.proxied.since(mark)] == [
        ("GET", f"{nginx.upstream_url}{WORKERS}", 200)]
    mark = nginx.proxied.mark()
    assert CALLS[client](cfg(nginx.upstream_url), "capacity").total_slots >= 1
    assert nginx.proxied.since(mark) == [], "no proxy configured: straight to Druid"


@pytest.mark.parametrize("client", sorted(CALLS))
def test_the_environments_proxy_is_used_only_with_trust_env(nginx, client, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", nginx.proxy_url)
    monkeypatch.setenv("http_proxy", nginx.proxy_url)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    mark = nginx.proxied.mark()
    assert CALLS[client](cfg(nginx.upstream_url), "capacity").total_slots >= 1
    assert nginx.proxied.since(mark) == [], "trust_env is off by default: HTTP_PROXY is ignored"
    mark = nginx.proxied.mark()
    assert CALLS[client](cfg(nginx.upstream_url, trust_env=True), "capacity").total_slots >= 1
    assert [h.path for h in nginx.proxied.since(mark)] == [f"{nginx.upstream_url}{WORKERS}"]


@pytest.mark.parametrize("client", sorted(CALLS))
def test_https_tunnels_through_squid_with_connect(nginx, client):
    smark, mark = nginx.squid.mark(), nginx.access.mark()
    assert CALLS[client](admin(nginx, proxy=nginx.squid_url), "capacity").total_slots >= 1
    assert [(h.method, h.target, h.status) for h in nginx.squid.since(smark)] == [
        ("CONNECT", hostport(nginx.tls_url), 200)]
    # end to end through the tunnel: TLS and the login reached nginx, which the proxy could not read
    assert [(h.path, h.status, h.user) for h in nginx.access.since(mark)] == [(WORKERS, 200, nginx.admin[0])]
    smark = nginx.squid.mark()
    assert CALLS[client](admin(nginx), "capacity").total_slots >= 1
    assert nginx.squid.since(smark) == [], "no proxy configured: no tunnel"


@pytest.mark.parametrize("client", sorted(CALLS))
@pytest.mark.parametrize("scheme", ["http", "https"])
def test_an_unreachable_proxy_names_the_proxy_field(nginx, client, scheme):
    dead = f"http://127.0.0.1:{free_port()}"
    config = cfg(nginx.upstream_url, proxy=dead) if scheme == "http" else admin(nginx, proxy=dead)
    target = nginx.upstream_url if scheme == "http" else nginx.tls_url
    error, _ = raised(lambda: CALLS[client](config, "capacity", retry=ONCE))
    assert isinstance(error, DruidConnectionError)
    assert str(error) == (
        f"could not reach the proxy {hostport(dead)} to call {hostport(target)} (Connection refused); check the "
        "connection's proxy extra (ClusterConfig.proxy) and that the proxy is running, or drop it to connect "
        "directly" + at(target))


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_plain_http_proxy_that_refuses_to_forward_is_named_not_blamed_on_druid(nginx, client):
    # the nginx forward proxy forwards only to the upstream Druid: it answers any other host itself, 403 (an HTML
    # page); before, that read as Druid's "the login is valid but this user is not permitted"
    config = cfg("http://127.0.0.2:9", proxy=nginx.proxy_url)
    mark = nginx.proxied.mark()
    error, took = raised(CALLS[client], config, "capacity")
    assert isinstance(error, DruidProxyError), error
    assert str(error) == (
        f"the proxy {hostport(nginx.proxy_url)} refused to forward the call to 127.0.0.2:9 (403 Forbidden): its "
        "rules do not let this host through; check the connection's proxy extra (ClusterConfig.proxy) and the "
        "proxy's rules, or drop the proxy to connect directly HTTP 403 [GET http://127.0.0.2:9/druid/indexer/v1/"
        "workers]")
    assert [(h.method, h.path, h.status) for h in nginx.proxied.since(mark)] == [
        ("GET", f"http://127.0.0.2:9{WORKERS}", 403)]
    assert took < 1.0, "a refusal is fatal: no retry backoff"


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_plain_http_proxy_that_wants_a_login_says_so(nginx, client):
    # the nginx forward proxy answers 407 with a Proxy-Authenticate challenge for 127.0.0.3 (a proxy's login)
    config = cfg("http://127.0.0.3:9", proxy=nginx.proxy_url)
    error, took = raised(CALLS[client], config, "capacity")
    assert isinstance(error, DruidProxyError), error
    assert str(error) == (
        f"the proxy {hostport(nginx.proxy_url)} refused to forward the call to 127.0.0.3:9 (407 Proxy "
        "Authentication Required): it wants a login: put it in the proxy URL (http://user:password@proxy:3128); "
        "check the connection's proxy extra (ClusterConfig.proxy) and the proxy's rules, or drop the proxy to "
        "connect directly HTTP 407 [GET http://127.0.0.3:9/druid/indexer/v1/workers]")
    assert took < 1.0, "a refusal is fatal: no retry backoff"


@pytest.mark.parametrize("client", sorted(CALLS))
def test_a_proxy_that_refuses_the_tunnel_is_named_with_its_answer(nginx, client):
    # squid allows CONNECT to 127.0.0.1 only: a tunnel to another address is refused (403)
    config = cfg("https://127.0.0.2:9", proxy=nginx.squid_url)
    smark = nginx.squid.mark()
    error, took = raised(CALLS[client], config, "capacity")
    assert isinstance(error, DruidProxyError)
    assert str(error) == (
        f"the proxy {hostport(nginx.squid_url)} refused to open a tunnel to 127.0.0.2:9 (403 Forbidden); check the "
        "connection's proxy extra (ClusterConfig.proxy): the proxy must allow CONNECT to that host and port, or "
        "drop the proxy to connect directly [GET https://127.0.0.2:9/druid/indexer/v1/workers]")
    assert [(h.method, h.target, h.status) for h in nginx.squid.since(smark)] == [("CONNECT", "127.0.0.2:9", 403)]
    assert took < 1.0, "a refusal is fatal: no retry backoff"


@pytest.mark.parametrize("client", sorted(CALLS))
def test_the_environments_https_proxy_tunnels_and_its_refusal_names_the_environment(nginx, client, monkeypatch):
    for name in ("HTTPS_PROXY", "https_proxy"):
        monkeypatch.setenv(name, nginx.squid_url)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    smark = nginx.squid.mark()
    assert CALLS[client](admin(nginx, trust_env=True), "capacity").total_slots >= 1
    assert [(h.method, h.target) for h in nginx.squid.since(smark)] == [("CONNECT", hostport(nginx.tls_url))]
    error, _ = raised(CALLS[client], cfg("https://127.0.0.2:9", trust_env=True), "capacity")
    assert isinstance(error, DruidProxyError)
    assert str(error) == (
        "the proxy from the environment (HTTPS_PROXY/HTTP_PROXY, read because trust_env is on) refused to open a "
        "tunnel to 127.0.0.2:9 (403 Forbidden); fix that proxy's rules, set NO_PROXY for this host, or set the "
        "connection's proxy extra (ClusterConfig.proxy) to one that allows it "
        "[GET https://127.0.0.2:9/druid/indexer/v1/workers]")
