"""The five gate and failure defects found against an independent Druid stand-in, reproduced on the fake over
real sockets for BOTH clients (``make_client``), and what the fixed core does instead."""

from __future__ import annotations

import copy
import time

import pytest
from druid_ingest.errors import DruidTaskFailedError, DruidUsageError, DruidWaitTimeoutError
from druid_ingest.ops import PollSchedule
from druid_ingest.testing import FakeDruid, Fault, TaskPlan

from tests.druid_ingest.sample_specs import day_spec

pytestmark = pytest.mark.timeout(60)
DAY = "2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"


def variant(spec: dict, name: str) -> dict:
    """The same day and datasource, another spec (another DAG, a changed column list...)."""
    out = copy.deepcopy(spec)
    out["spec"]["dataSchema"]["dimensionsSpec"]["dimensions"].append(name)
    return out


@pytest.fixture()
def queued(fake_druid_factory):
    """C holds the day's lock; A, then B (different specs) are created while it runs and queue behind it."""
    return fake_druid_factory(task_duration=0.6, handoff_delay=0.2, pending_delay=0.0, overshadowed_grace=0.0)


def test_lock_ordered_versions_b_waits_for_its_own_version_a_is_superseded(queued: FakeDruid, make_client) -> None:
    client = make_client(queued.url)
    spec = day_spec()
    ids = {}
    for name in ("c", "a", "b"):
        ids[name] = client.ensure_submitted(variant(spec, name)).task_id
        time.sleep(0.05)
    queued.pause_loading()  # nothing loads until we say so
    statuses = {name: client.wait_for_task(task_id, timeout=20) for name, task_id in ids.items()}
    a, b = queued.task(ids["a"]), queued.task(ids["b"])
    assert a.version > b.created_time and b.version > a.version  # the queue, not createdTime, ordered them
    assert all(s.version_ceiling for s in statuses.values())  # each was seen holding its lock

    for ceiling in (statuses["b"].version_ceiling, None):  # with and without having seen B's lock
        target_b = client.handoff_target(ids["b"], "", [DAY], version_ceiling=ceiling)
        first = client.check_handoff(target_b)
        assert first.state == "pending" and not first.done, first  # was: superseded, done=True
    target_a = client.handoff_target(ids["a"], "", [DAY], version_ceiling=statuses["a"].version_ceiling)
    assert client.check_handoff(target_a).state == "pending"  # B's version is what queries will read: not served

    queued.resume_loading()
    result_b = client.wait_for_handoff(target_b, timeout=20)
    assert result_b.state == "loaded" and result_b.version == b.version
    result_a = client.wait_for_handoff(target_a, timeout=20)
    assert result_a.state == "superseded" and result_a.superseded_by == b.version and b.version in result_a.detail


def test_wrong_datasource_fails_with_both_names_even_without_segments_published(fake_druid: FakeDruid,
                                                                                 make_client) -> None:
    client = make_client()
    fake_druid.plan_next_task(TaskPlan(report_segments_published=False))
    task_id = client.ensure_submitted(day_spec()).task_id
    client.wait_for_task(task_id, timeout=20)
    assert "segmentsPublished" not in str(client.report(task_id))
    with pytest.raises(DruidUsageError) as info:
        client.handoff_target(task_id, "not_my_datasource", [DAY])
    assert "'events_web'" in str(info.value) and "'not_my_datasource'" in str(info.value)
    target = client.handoff_target(task_id, "", [DAY])  # the task's own datasource
    assert target.datasource == "events_web" and target.segments_published is None
    assert client.wait_for_handoff(target, timeout=20).state == "loaded"


def test_failed_task_raises_one_error_with_full_message_row_stats_and_samples(fake_druid: FakeDruid,
                                                                              make_client) -> None:
    client = make_client()
    long_error = "Max parse exceptions[0] exceeded; " + "x" * 1500 + " END-OF-MESSAGE"
    fake_druid.plan_next_task(TaskPlan(outcome="FAILED", error_msg=long_error, unparseable=7))
    spec = day_spec()
    # Sequential, dynamic partitioning: Druid 33 writes no report for a FAILED range-partitioned task.
    spec["spec"]["tuningConfig"] = {"type": "index_parallel", "maxNumConcurrentSubTasks": 1,
                                    "partitionsSpec": {"type": "dynamic"}, "maxSavedParseExceptions": 3}
    with pytest.raises(DruidTaskFailedError) as info:
        client.ingest(spec, task_timeout=20, handoff_timeout=20)
    text = str(info.value)
    assert long_error in text  # the report's whole message, not the status's 1024-character cut
    assert "characters omitted" not in text
    assert "unparseable=" in text and "processed=" in text  # row stats
    assert "unparseable events (first 3 of 3)" in text and "fake,row,0" in text
    assert len(text) < 9000
    task_id = info.value.task_id
    with pytest.raises(DruidTaskFailedError, match="END-OF-MESSAGE"):
        client.handoff_target(task_id, "", [DAY])  # not "handoff is only defined for a SUCCESS task"


def test_ingest_goes_green_only_when_queryable(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    result = client.ingest(day_spec(), task_timeout=20, handoff_timeout=20)
    assert result.submit.action == "submitted" and result.status.state == "SUCCESS"
    assert result.handoff.state == "loaded" and result.report.totals()["processed"] > 0
    assert result.handoff.missing == () and result.handoff.expected > 0
    assert len(fake_druid.served_segment_ids("events_web")) >= result.handoff.expected
    again = client.ingest(day_spec(), task_timeout=20, handoff_timeout=20)
    assert again.submit.action == "adopted" and again.submit.task_id == result.submit.task_id


def test_broken_reports_endpoint_does_not_fail_a_good_ingestion(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    task_id = client.ensure_submitted(day_spec()).task_id
    client.wait_for_task(task_id, timeout=20)
    fault = fake_druid.add_fault(Fault(path=r"/reports$", kind="status", status=500, times=None))
    target = client.handoff_target(task_id, "events_web", [DAY])  # was: DruidRetriesExhaustedError
    assert target.segments_published is None and fault.fired >= 2  # retried, then degraded to "no count"
    assert client.wait_for_handoff(target, timeout=20).state == "loaded"


@pytest.mark.parametrize("bad", ["..", ".", ""])
def test_dot_path_segments_are_refused_before_any_http(fake_druid: FakeDruid, make_client, bad: str) -> None:
    client = make_client()
    fake_druid.clear_requests()
    for call in (
        lambda: client.status(bad),
        lambda: client.report(bad),
        lambda: client.shutdown(bad),
        lambda: client.task_payload(bad),
        lambda: client.handoff_target(bad, "events_web", [DAY]),
        lambda: client.wait_for_task(bad, timeout=1),
    ):
        with pytest.raises(DruidUsageError, match="cannot be sent to Druid"):
            call()
    assert fake_druid.requests == []
    task_id = client.ensure_submitted(day_spec()).task_id
    client.wait_for_task(task_id, timeout=20)
    target = client.handoff_target(task_id, "", [DAY])
    fake_druid.clear_requests()
    with pytest.raises(DruidUsageError, match="datasource"):
        client.check_handoff(type(target).from_dict({**target.to_dict(), "datasource": bad}))
    assert fake_druid.requests == []


def test_an_empty_ingestion_is_an_error_of_its_own_with_druids_words(fake_druid: FakeDruid, make_client) -> None:
    from druid_ingest.errors import DruidEmptyIngestionError

    client = make_client()
    # the sampler sees a row the task will not have (the input changed after the probe): the task runs, and the
    # after-task verdict must still catch the empty ingestion
    fake_druid.add_fault(Fault("POST", "/druid/indexer/v1/sampler", kind="status", status=200,
                               content_type="application/json",
                               body='{"numRowsRead": 1, "numRowsIndexed": 1, "data": []}', times=None))
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))  # range partitioning, no rows: SUCCESS + errorMsg
    spec = day_spec()
    spec["spec"]["tuningConfig"]["maxNumConcurrentSubTasks"] = 2
    with pytest.raises(DruidEmptyIngestionError, match="No valid rows for range partitioning"):
        client.ingest(spec, task_timeout=20, handoff_timeout=20)
    task_id = client.ensure_submitted(spec).task_id  # the same work: adopted, not resubmitted
    target = client.handoff_target(task_id, "", [DAY])
    assert client.wait_for_handoff(target, timeout=20).state == "nothing"  # the low-level wait reports it plainly


def test_a_gate_waiting_with_no_historical_says_so(fake_druid: FakeDruid, make_client, monkeypatch) -> None:
    """Pending because no Historical is up: from the second "will it ever load?" look (every 60 s; 0.5 s here)
    the pending line says so (one /servers read per such look), and stops once one is back and they load. The
    question is asked past the usual handoff window (12 s without history; 0.3 s here)."""
    from druid_ingest.ops import handoff_wait
    from druid_ingest.ops.gate import looks

    monkeypatch.setattr(handoff_wait, "NEVER_PROBE_EVERY", 0.5)
    monkeypatch.setattr(looks, "WINDOW_END", 0.3)
    client = make_client()
    task_id = client.ensure_submitted(day_spec()).task_id
    fake_druid.set_historicals(0)
    client.wait_for_task(task_id, timeout=20)
    target = client.handoff_target(task_id, "events_web", [DAY])
    seen: list = []
    with pytest.raises(DruidWaitTimeoutError):
        client.wait_for_handoff(target, timeout=2.5, schedule=PollSchedule(0.1, 0.2, 1.5), on_progress=seen.append)
    notes = [r.detail for r in seen if "no Historical is announced to the Coordinator" in r.detail]
    assert notes and "not served yet" in notes[0], [r.detail for r in seen]
    assert "no Historical" not in seen[0].detail + seen[1].detail  # the first two looks do not ask
    asked = len(fake_druid.requests_matching("GET", "/druid/coordinator/v1/servers"))
    probes = len(fake_druid.requests_matching("GET", "/druid/coordinator/v1/datasources/events_web/handoffComplete"))
    assert 1 <= asked == probes - 1, (asked, probes)  # one per "ever load?" look but the first
    fake_druid.set_historicals(1)
    done = client.wait_for_handoff(target, timeout=20, schedule=PollSchedule(0.1, 0.2, 1.5))
    assert done.state == "loaded" and "no Historical" not in done.detail
