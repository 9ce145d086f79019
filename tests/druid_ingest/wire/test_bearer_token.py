"""Bearer tokens (ClusterConfig.token): sent as ``Authorization: Bearer`` to the configured and trusted hosts only,
never printed, and a refused token gets a message naming the field to fix."""

from __future__ import annotations

import pytest
from druid_ingest.errors import DruidAuthError, DruidRedirectError
from druid_ingest.testing import FakeDruid, Fault
from druid_ingest.wire._config import ClusterConfig

from tests.druid_ingest.sample_specs import day_spec

REDIRECT_ALL = r"^/druid/indexer/"


def test_the_token_is_sent_as_a_bearer_header(make_client) -> None:
    with FakeDruid() as druid:
        client = make_client(druid.url, token="tok-123")
        client.ensure_submitted(day_spec())
        assert druid.requests and all(r.headers.get("Authorization") == "Bearer tok-123" for r in druid.requests)


def test_the_token_wins_over_a_password() -> None:
    config = ClusterConfig(url="http://router:8888", username="u", password="pw", token="tok")
    assert config.authorization_header() == "Bearer tok"


def test_the_token_never_prints_itself() -> None:
    config = ClusterConfig(url="http://router:8888", token="very-secret-token")
    assert "very-secret-token" not in repr(config) and "very-secret-token" not in str(config.token)


def test_the_token_is_not_sent_to_an_untrusted_redirect(make_client) -> None:
    with FakeDruid() as leader, FakeDruid() as follower:
        follower.add_fault(Fault(path=REDIRECT_ALL, kind="redirect", redirect_to=leader.url, times=None))
        client = make_client(f"http://localhost:{follower.port}", token="tok-123")
        with pytest.raises(DruidRedirectError, match="trusted_hosts"):
            client.ensure_submitted(day_spec())
        assert leader.requests == []


def test_a_refused_token_names_the_token_field(make_client) -> None:
    with FakeDruid(auth={"admin": ("pw", "write")}) as druid:
        client = make_client(druid.url, token="expired")
        with pytest.raises(DruidAuthError, match=r"rejected the bearer token.*ClusterConfig.token"):
            client.ensure_submitted(day_spec())


def test_a_key_without_a_cert_is_refused() -> None:
    with pytest.raises(ValueError, match=r"client_key.*client_cert"):
        ClusterConfig(url="http://router:8888", client_key="/k.pem")


def test_a_proxy_without_a_scheme_is_http_and_a_socks_one_is_refused() -> None:
    assert ClusterConfig(url="http://r:8888", proxy="proxy:3128").proxy == "http://proxy:3128"
    with pytest.raises(ValueError, match=r"proxy.*http"):
        ClusterConfig(url="http://r:8888", proxy="socks5://p:1080")
