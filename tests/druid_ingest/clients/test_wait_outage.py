"""A wait ends at its deadline, not at one call's retry budget: an Overlord answering 503 for longer than a
call's retries is ridden out (and logged: start, during, end); one that outlasts the deadline ends in the
wait's timeout naming the outage. Both clients (the sync client and the trigger's async one) share the rule."""

from __future__ import annotations

import logging

import pytest
from druid_ingest.errors import DruidWaitTimeoutError
from druid_ingest.ops import _outage
from druid_ingest.testing import FakeDruid, Fault
from druid_ingest.wire import RetryPolicy

from tests.druid_ingest.conftest import FAST_POLL
from tests.druid_ingest.sample_specs import day_spec

pytestmark = pytest.mark.timeout(60)

#: one call gives up after two quick attempts: far shorter than the outage below
SHORT_CALL = RetryPolicy(max_attempts=2, initial_delay=0.01, max_delay=0.02, deadline=1.0)
STATUS_READS = r"^/druid/indexer/v1/(task/[^/]+/status|taskStatus|tasks|task/[^/]+$)"


def test_ingest_rides_out_an_overlord_outage_and_logs_it(fake_druid: FakeDruid, make_client, caplog,
                                                        monkeypatch) -> None:
    monkeypatch.setattr(_outage, "OUTAGE_LOG_EVERY", 0.0)  # every failed look says "still unreachable"
    fake_druid.add_fault(Fault(method="GET", path=STATUS_READS, kind="leaderless", times=12))
    client = make_client(retry=SHORT_CALL)
    with caplog.at_level(logging.WARNING, logger="druid_ingest.waits"):
        result = client.ingest(day_spec(), task_timeout=30, handoff_timeout=30, schedule=FAST_POLL)
    assert result.status.state == "SUCCESS"
    lines = [r.getMessage() for r in caplog.records if r.name == "druid_ingest.waits"]
    assert any(m.startswith("Druid unreachable while waiting") for m in lines), lines
    assert any("still unreachable" in m and "last error" in m for m in lines), lines
    assert any("reachable again" in m for m in lines), lines


def test_outage_past_the_deadline_is_the_waits_timeout_naming_it(fake_druid: FakeDruid, make_client) -> None:
    fake_druid.add_fault(Fault(method="GET", path=STATUS_READS, kind="leaderless", times=None, after=1))
    client = make_client(retry=SHORT_CALL)
    with pytest.raises(DruidWaitTimeoutError, match="unreachable for the last"):
        client.ingest(day_spec(), task_timeout=2, handoff_timeout=5, schedule=FAST_POLL)


def test_handoff_wait_rides_out_a_coordinator_outage(fake_druid: FakeDruid, make_client, caplog) -> None:
    served = r"^/druid/coordinator/v1/datasources/[^/]+/intervals/"
    fake_druid.add_fault(Fault(method="GET", path=served, kind="status", status=503, times=12))
    client = make_client(retry=SHORT_CALL)
    with caplog.at_level(logging.WARNING, logger="druid_ingest.waits"):
        result = client.ingest(day_spec(), task_timeout=30, handoff_timeout=30, schedule=FAST_POLL)
    assert result.status.state == "SUCCESS"
    assert any("reachable again while waiting for the segments" in r.getMessage() for r in caplog.records)
