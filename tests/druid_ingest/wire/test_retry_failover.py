"""The default RetryPolicy must ride out an Overlord/Coordinator leader failover behind the Router.

Measured on the ha cluster (tests/druid_ha/test_overlord_failover.py): after a SIGKILL of the leader the Router
answers 502 for ~31 s, Druid's ZooKeeper session timeout (``druid.zk.service.sessionTimeoutMs``, 30 s) plus the
survivor's take-over (docs/druid-contract.md §failover). The exchange is driven by hand on a simulated clock, with
the jitter at its lowest (the shortest the default policy can possibly keep retrying).
"""

from __future__ import annotations

import random

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidRetriesExhaustedError
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._exchange import HttpCall, Sleep, exchange
from druid_ingest.wire._http import Response
from druid_ingest.wire._retry import RetryPolicy

CFG = ClusterConfig(url="http://127.0.0.1:1")
SESSION_TIMEOUT = 30.0  # Druid's CuratorConfig default


def outage(policy: RetryPolicy, down_for: float) -> tuple[object, float, int]:
    """Drive one status read while the Router answers 502 for ``down_for`` s; (result, seconds, calls)."""
    now = [0.0]
    ex = exchange(ep.status("t"), CFG, policy, clock=lambda: now[0])
    reply: object = None
    calls = 0
    try:
        while True:
            action = ex.send(reply)
            if isinstance(action, Sleep):
                now[0] += action.seconds
                reply = None
                continue
            assert isinstance(action, HttpCall)
            calls += 1
            now[0] += 0.01  # the Router's 502 for a refused connection comes back at once
            status, body = (502, b"Bad Gateway") if now[0] < down_for else (200, b"{}")
            reply = Response(status, body, {}, action.url, action.method)
    except StopIteration as stop:
        return stop.value, now[0], calls
    except DruidRetriesExhaustedError as exc:
        return exc, now[0], calls


@pytest.fixture
def lowest_jitter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random, "uniform", lambda a, b: a)


@pytest.mark.parametrize("down_for", [SESSION_TIMEOUT + 1, SESSION_TIMEOUT + 15, SESSION_TIMEOUT + 25])
def test_default_policy_outlasts_a_failover_gap(lowest_jitter: None, down_for: float) -> None:
    result, took, calls = outage(RetryPolicy(), down_for)
    assert isinstance(result, Response) and result.status == 200, (result, took, calls)
    assert took >= down_for


def test_default_policy_still_gives_up_within_its_deadline(lowest_jitter: None) -> None:
    policy = RetryPolicy()
    result, took, calls = outage(policy, float("inf"))
    assert isinstance(result, DruidRetriesExhaustedError)
    assert calls == policy.max_attempts and 2 * SESSION_TIMEOUT <= took <= policy.deadline
