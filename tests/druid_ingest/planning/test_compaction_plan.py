"""Compaction on the Plan seam: Druid's ``compact`` task planned and checked before any HTTP, submitted under a
deterministic id (a retry adopts it), and gated like an ingestion: green only once the compacted version is what
the Broker serves. Against the fake Druid over real sockets."""

from __future__ import annotations

import time

import pytest
from druid_ingest.errors import DruidNothingToCompactError, DruidTaskFailedError, SpecValidationError, is_fatal
from druid_ingest.planning import build_compaction_plan
from druid_ingest.testing import FakeDruid, TaskPlan

from tests.druid_ingest.sample_specs import day_spec

DS = "events_web"
MONTH = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"


def test_an_interval_off_the_target_buckets_is_refused_naming_the_field():
    with pytest.raises(SpecValidationError, match="invalid compaction request") as refused:
        build_compaction_plan(DS, "2026-11-02/2026-12-01", segment_granularity="MONTH")
    [problem] = refused.value.problems
    assert problem.path == "interval" and "MONTH buckets" in str(problem) and "2026-11-02/2026-12-01" in str(problem)


def test_every_problem_is_named_at_once():
    with pytest.raises(SpecValidationError) as refused:
        build_compaction_plan("", "2026-11-01/2026-12-01", segment_granularity="FORTNIGHT",
                              tuning_config={"maxNumConcurrentSubTasks": 0})
    assert [p.path for p in refused.value.problems] == ["datasource", "segment_granularity",
                                                       "tuning_config.maxNumConcurrentSubTasks"]
    with pytest.raises(SpecValidationError, match="interval"):
        build_compaction_plan(DS, "yesterday")


def test_the_id_is_pinned_by_what_it_does_and_the_key():
    plan = build_compaction_plan(DS, "2026-11-01/2026-12-01", segment_granularity="month")
    same = build_compaction_plan(DS, "2026-11-01T00:00:00Z/2026-12-01T00:00:00Z", segment_granularity="MONTH")
    assert plan.base_task_id == same.base_task_id and plan.base_task_id.startswith(f"compact_{DS}_20261101-20261201_")
    assert build_compaction_plan(DS, "2026-11-01/2026-12-01", idempotency_key="again").base_task_id != plan.base_task_id
    assert plan.intervals == (MONTH,) and (plan.kind, plan.mode, plan.append, plan.probes_input) == (
        "compaction", "COMPACT", False, False)
    body = plan.submit_request(plan.base_task_id).json_body
    assert body["type"] == "compact" and body["id"] == plan.base_task_id
    assert body["granularitySpec"] == {"segmentGranularity": "MONTH"}
    assert build_compaction_plan(DS, MONTH, tuning_config={"maxNumConcurrentSubTasks": 3}).peak_slots == 4


@pytest.fixture()
def fake(fake_druid_factory) -> FakeDruid:
    return fake_druid_factory(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0)


def test_a_day_to_month_compaction_is_adopted_on_retry_and_green_only_once_the_month_is_served(
        fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    day = client.ensure_submitted(day_spec()).task_id
    client.wait_for_task(day, timeout=20)
    plan = build_compaction_plan(DS, "2026-11-01/2026-12-01", segment_granularity="MONTH")
    first = client.ensure_submitted(plan)
    again = client.ensure_submitted(plan)  # a retried Airflow task: the same compaction, no second POST
    assert (first.action, again.action, again.task_id) == ("submitted", "adopted", first.task_id)
    assert sum(1 for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task") == 2
    outcome = client.watch_ingestion(first.task_id, DS, list(plan.intervals), plan.append,
                                     task_deadline=time.time() + 20, handoff_timeout=20)
    assert outcome.task.kind == "success" and outcome.handoff is not None
    assert outcome.handoff.verdict().passed and outcome.handoff.result.state == "loaded", outcome.handoff
    month = [s["identifier"] for s in fake.task(first.task_id).segments]
    assert [s["interval"] for s in fake.task(first.task_id).segments] == [MONTH]
    assert set(month) <= set(fake.served_segment_ids(DS))  # green means the compacted version is served


def _posts(fake: FakeDruid) -> int:
    return sum(1 for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task")


def test_nothing_to_compact_is_its_own_error_naming_the_interval_and_a_retry_adopts(fake: FakeDruid,
                                                                                   make_client) -> None:
    """Druid 33 fails a compaction whose interval holds no used segment before it runs (observed on the dev
    cluster: "No segments found for compaction..."); the fake does the same. The core names it: a
    DruidNothingToCompactError (still a DruidTaskFailedError) with the datasource, interval and opt-out, and a
    retry adopts the FAILED task instead of submitting ``_r1``."""
    client = make_client(fake.url)
    plan = build_compaction_plan(DS, "2026-11-01/2026-12-01", segment_granularity="MONTH")
    with pytest.raises(DruidNothingToCompactError) as failed:
        client.ingest(plan, task_timeout=20, handoff_timeout=20)
    assert isinstance(failed.value, DruidTaskFailedError) and is_fatal(failed.value)
    text = str(failed.value)
    assert f"datasource {DS!r} holds no used segment in {MONTH}" in text and "allow_empty=True" in text
    assert "No segments found for compaction" in (failed.value.error_msg or "")
    assert (failed.value.datasource, failed.value.interval, failed.value.task_id) == (DS, MONTH, plan.base_task_id)
    assert fake.task(plan.base_task_id).start_at is None  # failed while waiting to be ready: never ran
    again = client.ensure_submitted(plan)  # a retry: the same FAILED compaction, never a second task
    assert (again.action, again.task_id, again.state) == ("adopted", plan.base_task_id, "FAILED")
    with pytest.raises(DruidNothingToCompactError):
        client.ingest(plan, task_timeout=20, handoff_timeout=20)
    assert _posts(fake) == 1


def test_nothing_to_compact_with_allow_empty_is_green_without_gate_or_second_task(fake: FakeDruid,
                                                                                 make_client) -> None:
    client = make_client(fake.url)
    plan = build_compaction_plan(DS, "2026-11-01/2026-12-01", segment_granularity="MONTH")
    result = client.ingest(plan, task_timeout=20, handoff_timeout=20, allow_empty=True)
    empty = result.nothing_to_compact
    assert empty is not None and (empty.outcome, empty.datasource, empty.interval) == ("nothing to compact", DS, MONTH)
    assert "Nothing to compact" in empty.line and result.status.state == "FAILED" and result.handoff is None
    assert result.to_dict()["nothing_to_compact"]["outcome"] == "nothing to compact"
    assert not fake.requests_matching("GET", "/handoffComplete")  # no gate ran: nothing was written
    retried = client.ingest(plan, task_timeout=20, handoff_timeout=20, allow_empty=True)
    assert (retried.submit.action, retried.nothing_to_compact) == ("adopted", empty) and _posts(fake) == 1


def test_a_failed_compaction_for_another_reason_stays_a_plain_failure_and_resubmits(fake: FakeDruid,
                                                                                    make_client) -> None:
    """Only Druid's "No segments found" is nothing to compact: another FAILED compaction is an ordinary failure,
    and a retry submits the next attempt as before."""
    client = make_client(fake.url)
    day = client.ensure_submitted(day_spec()).task_id
    client.wait_for_task(day, timeout=20)
    fake.plan_next_task(TaskPlan(outcome="FAILED", error_msg="java.lang.OutOfMemoryError"))
    plan = build_compaction_plan(DS, "2026-11-01/2026-12-01", segment_granularity="MONTH")
    with pytest.raises(DruidTaskFailedError) as failed:
        client.ingest(plan, task_timeout=20, handoff_timeout=20, allow_empty=True)
    assert not isinstance(failed.value, DruidNothingToCompactError)
    assert client.ensure_submitted(plan).action == "submitted"  # the next attempt, _r1
