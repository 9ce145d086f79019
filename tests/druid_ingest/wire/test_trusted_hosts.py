"""``trusted_hosts`` given as bare ``host:port`` (how the connection extra and the docs spell them): such a host
gets the credentials on a leader redirect, over http and https alike; one given with a scheme only over that one."""

from __future__ import annotations

import pytest
from druid_ingest.errors import DruidRedirectError
from druid_ingest.testing import FakeDruid, Fault
from druid_ingest.wire._config import ClusterConfig, netloc_of

from tests.druid_ingest.sample_specs import day_spec

REDIRECT_ALL = r"^/druid/indexer/"


@pytest.mark.parametrize("spelling", ["127.0.0.1:{port}", "http://127.0.0.1:{port}"])
def test_a_redirect_to_a_trusted_bare_host_port_keeps_the_credentials(make_client, spelling: str) -> None:
    with FakeDruid() as leader, FakeDruid() as follower:
        follower.add_fault(Fault(path=REDIRECT_ALL, kind="redirect", redirect_to=leader.url, times=None))
        # the leader is at 127.0.0.1; the client reaches the follower as localhost: only trusted_hosts vouches
        client = make_client(f"http://localhost:{follower.port}", username="u", password="pw",
                             trusted_hosts=(spelling.format(port=leader.port),))
        task_id = client.ensure_submitted(day_spec()).task_id
        assert leader.task(task_id) is not None and follower.task(task_id) is None
        submits = [r for r in leader.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task"]
        assert submits and all(r.headers.get("Authorization", "").startswith("Basic ") for r in submits)


def test_a_bare_host_port_for_another_port_is_not_trusted(make_client) -> None:
    with FakeDruid() as leader, FakeDruid() as follower:
        follower.add_fault(Fault(path=REDIRECT_ALL, kind="redirect", redirect_to=leader.url, times=None))
        client = make_client(f"http://localhost:{follower.port}", username="u", password="pw",
                             trusted_hosts=(f"127.0.0.1:{leader.port + 1}",))
        with pytest.raises(DruidRedirectError, match="trusted_hosts"):
            client.ensure_submitted(day_spec())
        assert leader.requests == []


def test_trusted_netlocs_of_bare_and_scheme_spellings() -> None:
    config = ClusterConfig(url="http://router:8888", trusted_hosts=("Overlord-2:8090", "https://overlord-3:8281"))
    assert config.trusted_netlocs() == {
        ("http", "router", 8888),
        ("http", "overlord-2", 8090),
        ("https", "overlord-2", 8090),  # bare: either scheme (a TLS leader redirects to https)
        ("https", "overlord-3", 8281),  # with a scheme: that scheme only
    }


def test_default_ports_fill_in_by_scheme() -> None:
    """A URL without a port means 443 for https and 80 for http: a redirect to ``https://broker/`` is to :443."""
    config = ClusterConfig(url="https://router", trusted_hosts=("https://overlord-3", "http://overlord-4"))
    assert config.trusted_netlocs() == {("https", "router", 443), ("https", "overlord-3", 443),
                                        ("http", "overlord-4", 80)}
    assert netloc_of("https://Broker/druid/v2") == ("https", "broker", 443)
    assert netloc_of("http://broker/druid/v2") == ("http", "broker", 80)
    assert netloc_of("https://broker:8282/") == ("https", "broker", 8282)
