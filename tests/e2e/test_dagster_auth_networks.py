"""The Dagster face's ``DruidResource`` through the real nginx (and squid) of dev/nginx in front of the real Druid:
its token (from ``dg.EnvVar``, resolved by Dagster), client certificate and proxy fields reach the wire the same
way the core's own tests prove (tests/e2e/test_auth_networks.py); nginx's and squid's access logs show what
arrived. Before, only the Airflow face was proven through the harness."""

from __future__ import annotations

from typing import Any

import dagster as dg
import pytest
from dagster_druid_ingest import DruidResource
from druid_ingest.errors import DruidAuthError, DruidProxyError, DruidTLSError

from . import nginx_harness
from .test_tls_auth import hostport

pytestmark = pytest.mark.timeout(300)
WORKERS = "/druid/indexer/v1/workers"


@pytest.fixture(scope="module")
def nginx() -> nginx_harness.Nginx:
    return nginx_harness.load()


def capacity(resource: DruidResource) -> Any:
    """What a Dagster op does with the resource: Dagster resolves it, the op asks it for a client and calls."""
    with dg.build_resources({"druid": resource}) as resources, resources.druid.get_client() as druid:
        return druid.capacity()


def test_a_token_from_an_env_var_is_sent_as_a_bearer_token(nginx, monkeypatch):
    monkeypatch.setenv("DRUID_TEST_TOKEN", nginx.token)
    mark = nginx.tokens.mark()
    resource = DruidResource(url=nginx.token_url, ca_bundle=nginx.ca_bundle, token=dg.EnvVar("DRUID_TEST_TOKEN"))
    assert capacity(resource).total_slots >= 1
    assert [(h.path, h.status, h.scheme) for h in nginx.tokens.since(mark)] == [(WORKERS, 200, "bearer")]


def test_a_wrong_token_is_refused_at_once_and_never_printed(nginx, monkeypatch):
    wrong = "not-" + nginx.token
    monkeypatch.setenv("DRUID_TEST_TOKEN", wrong)
    mark = nginx.tokens.mark()
    resource = DruidResource(url=nginx.token_url, ca_bundle=nginx.ca_bundle, token=dg.EnvVar("DRUID_TEST_TOKEN"))
    with pytest.raises(DruidAuthError) as info:
        capacity(resource)
    text = str(info.value)
    assert info.value.status == 401 and text.startswith("Druid rejected the bearer token: it was sent and refused")
    assert wrong not in text and wrong not in repr(info.value)
    assert [(h.status, h.scheme) for h in nginx.tokens.since(mark)] == [(401, "bearer")], "no retries on 401"


def test_the_client_certificate_fields_reach_the_tls_handshake(nginx):
    mark = nginx.mtls.mark()
    resource = DruidResource(url=nginx.mtls_url, ca_bundle=nginx.ca_bundle, client_cert=nginx.client_cert,
                             client_key=nginx.client_key)
    assert capacity(resource).total_slots >= 1
    assert [(h.path, h.status, h.client) for h in nginx.mtls.since(mark)] == [(WORKERS, 200, "SUCCESS")]
    with pytest.raises(DruidTLSError) as info:
        capacity(DruidResource(url=nginx.mtls_url, ca_bundle=nginx.ca_bundle))
    assert "requires a TLS client certificate and none was sent" in str(info.value)
    assert "client_cert and client_key" in str(info.value)


def test_the_proxy_field_routes_http_through_the_proxy_and_https_through_a_tunnel(nginx):
    mark = nginx.proxied.mark()
    assert capacity(DruidResource(url=nginx.upstream_url, proxy=nginx.proxy_url)).total_slots >= 1
    assert [(h.method, h.path, h.status) for h in nginx.proxied.since(mark)] == [
        ("GET", f"{nginx.upstream_url}{WORKERS}", 200)]
    smark = nginx.squid.mark()
    admin = DruidResource(url=nginx.tls_url, ca_bundle=nginx.ca_bundle, username=nginx.admin[0],
                          password=nginx.admin[1], proxy=nginx.squid_url)
    assert capacity(admin).total_slots >= 1
    assert [(h.method, h.target, h.status) for h in nginx.squid.since(smark)] == [
        ("CONNECT", hostport(nginx.tls_url), 200)]
    with pytest.raises(DruidProxyError) as info:
        capacity(DruidResource(url="http://127.0.0.2:9", proxy=nginx.proxy_url))
    assert str(info.value).startswith(f"the proxy {hostport(nginx.proxy_url)} refused to forward the call to "
                                      "127.0.0.2:9 (403 Forbidden)")


def test_the_environments_proxy_is_read_only_with_trust_env(nginx, monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, nginx.proxy_url)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    mark = nginx.proxied.mark()
    assert capacity(DruidResource(url=nginx.upstream_url)).total_slots >= 1
    assert nginx.proxied.since(mark) == [], "trust_env is off by default: HTTP_PROXY is ignored"
    assert capacity(DruidResource(url=nginx.upstream_url, trust_env=True)).total_slots >= 1
    assert [h.path for h in nginx.proxied.since(mark)] == [f"{nginx.upstream_url}{WORKERS}"]
