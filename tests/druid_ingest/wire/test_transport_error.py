"""wire.transport_error: the one table both transports map their failures through."""

from __future__ import annotations

import pytest
from druid_ingest.errors import DruidConnectionError, DruidProxyError, DruidTimeoutError, DruidTLSError
from druid_ingest.wire import transport_error

URL = "https://druid:8281/status"


@pytest.mark.parametrize(("kind", "reason", "cls", "text"), [
    ("tls", "CERTIFICATE_VERIFY_FAILED", DruidTLSError, "ca_bundle"),
    ("timeout", "ReadTimeout", DruidTimeoutError, "timed out: ReadTimeout"),
    ("connect", "[Errno 111] Connection refused", DruidConnectionError, "nothing listens there"),
    ("connect", "ServerDisconnectedError: Server disconnected", DruidConnectionError, "client_cert"),
    # aiohttp under load: the TLS server's hang-up arrives as a reset (ClientOSError), not a disconnect
    ("connect", "ClientOSError: [Errno 104] Connection reset by peer", DruidConnectionError, "client_cert"),
    ("other", "ClientPayloadError", DruidConnectionError, "connection failed: ClientPayloadError"),
])
def test_each_failure_kind_maps_to_its_error(kind, reason, cls, text) -> None:
    error = transport_error(kind, reason, "GET", URL)
    assert type(error) is cls and text in str(error) and error.url == URL


def test_a_proxy_failure_names_the_proxy() -> None:
    error = transport_error("connect", "[Errno 111] Connection refused", "GET", URL, "http://proxy:3128")
    assert "could not reach the proxy proxy:3128" in str(error)


@pytest.mark.parametrize(("reason", "cls"), [
    ("403 Forbidden", DruidProxyError),
    ("407 Proxy Authentication Required", DruidProxyError),
    ("503 Service Unavailable", DruidConnectionError),  # the proxy could not reach the target: retried
])
def test_a_refused_tunnel_names_the_proxy_and_connect(reason, cls) -> None:
    error = transport_error("proxy", reason, "GET", URL, "http://user:pw@proxy:3128")
    assert type(error) is cls
    text = str(error)
    assert text.startswith(f"the proxy proxy:3128 refused to open a tunnel to druid:8281 ({reason})")
    assert "ClusterConfig.proxy" in text and "CONNECT" in text and "pw" not in text
    assert ("http://user:password@proxy:3128" in text) == reason.startswith("407")


def test_a_tls_hang_up_with_a_client_cert_configured_says_it_was_refused() -> None:
    error = transport_error("connect", "ClientOSError: [Errno 104] Connection reset by peer", "GET", URL,
                            client_cert=True)
    assert "it most likely refused the TLS client certificate" in str(error)


def test_a_refused_tunnel_through_the_environments_proxy_says_so() -> None:
    error = transport_error("proxy", "403 Forbidden", "GET", URL, None)
    assert type(error) is DruidProxyError
    assert str(error).startswith("the proxy from the environment (HTTPS_PROXY/HTTP_PROXY, read because trust_env "
                                 "is on) refused to open a tunnel to druid:8281 (403 Forbidden)")
