"""A proxy that forwards a plain-http call may answer it itself (403: its rules; 407: it wants a login): that is
the proxy's refusal, named as such, not Druid's "not permitted" (wire._http.raise_for_status, pure)."""

from __future__ import annotations

import pytest
from druid_ingest.errors import DruidAuthError, DruidFatalError, DruidProxyError
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._http import Request, Response, classify, raise_for_status

URL = "http://druid.internal:8888/druid/indexer/v1/workers"
PAGE = b"<html><head><title>403 Forbidden</title></head><body>nginx</body></html>"
DRUID_403 = b'{"Access-Check-Result":"Unauthorized"}'
FIX = ("check the connection's proxy extra (ClusterConfig.proxy) and the proxy's rules, or drop the proxy to "
       "connect directly")


def refusal(status: int, body: bytes, via_proxy: str) -> Exception:
    resp = Response(status, body, {"Content-Type": "text/html"} if body.startswith(b"<") else {}, URL, "GET",
                    sent_auth=True, via_proxy=via_proxy)
    assert classify(resp) == "ok", "a refusal is not retried"
    with pytest.raises(Exception) as info:
        raise_for_status(resp, Request("GET", "overlord", "/druid/indexer/v1/workers"))
    return info.value


def test_a_proxy_page_403_is_the_proxys_refusal():
    error = refusal(403, PAGE, "proxy.corp:3128")
    assert isinstance(error, DruidProxyError) and isinstance(error, DruidFatalError)
    assert str(error) == (
        "the proxy proxy.corp:3128 refused to forward the call to druid.internal:8888 (403 Forbidden): its rules do "
        f"not let this host through; {FIX} HTTP 403 [GET {URL}]")


def test_druids_own_json_403_through_a_proxy_stays_druids():
    error = refusal(403, DRUID_403, "proxy.corp:3128")
    assert type(error) is DruidAuthError
    assert "the login is valid but this user is not permitted to call GET /druid/indexer/v1/workers" in str(error)


def test_a_403_page_without_a_forwarding_proxy_is_still_read_as_druids():
    # no proxy forwarded the call (direct, or an https tunnel): only Druid (or its gateway) can have answered
    assert type(refusal(403, PAGE, "")) is DruidAuthError


@pytest.mark.parametrize("via", ["proxy.corp:3128", ""])
def test_a_407_is_always_a_proxy_wanting_a_login(via):
    error = refusal(407, b"", via)
    who = f"the proxy {via}" if via else "a proxy between this client and Druid"
    assert isinstance(error, DruidProxyError)
    assert str(error) == (
        f"{who} refused to forward the call to druid.internal:8888 (407 Proxy Authentication Required): it wants a "
        f"login: put it in the proxy URL (http://user:password@proxy:3128); {FIX} HTTP 407 [GET {URL}]")


@pytest.mark.parametrize(
    ("proxy", "url", "want"),
    [
        ("http://proxy.corp:3128", "http://druid:8888/x", "proxy.corp:3128"),
        ("proxy.corp", "http://druid:8888/x", "proxy.corp:80"),
        ("https://proxy.corp", "http://druid:8888/x", "proxy.corp:443"),
        ("http://proxy.corp:3128", "https://druid:9088/x", ""),  # a tunnel: only Druid answers inside it
        (None, "http://druid:8888/x", ""),
    ],
)
def test_forwarding_proxy_is_the_configured_one_for_plain_http_only(proxy, url, want):
    assert ClusterConfig(url="http://druid:8888", proxy=proxy).forwarding_proxy(url) == want
