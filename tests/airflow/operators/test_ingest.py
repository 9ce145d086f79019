"""DruidIngestOperator (one task from spec to queryable data) against FakeDruid over real sockets."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from airflow.sdk.exceptions import AirflowException, AirflowFailException, TaskDeferred
from druid_ingest.errors import DruidTaskFailedError
from druid_ingest.testing import Fault, TaskPlan

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.triggers.ingestion import DruidIngestionTrigger

from ..conftest import FakeTI
from ..helpers import FAST, posts, run_trigger, shutdowns, spec

SAMPLER = "/druid/indexer/v1/sampler"


def test_ingest_defers_once_after_pushing_refs_then_completes(druid_conn, context):
    op = DruidIngestOperator(task_id="ingest", spec=spec(), deferrable=True, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    trigger = deferred.value.trigger
    assert isinstance(trigger, DruidIngestionTrigger) and deferred.value.method_name == "execute_complete"
    assert context["ti"].xcom["druid_task_id"] == trigger.druid_task_id  # pushed BEFORE deferring
    assert "druid_task_url" in context["ti"].xcom
    event = run_trigger(trigger)  # the task wait AND the handoff wait, one deferral
    assert event["status"] == "success" and event["handoff"]["result"]["state"] == "loaded", event
    resumed = DruidIngestOperator(task_id="ingest", spec=spec(), deferrable=True, **FAST)
    assert resumed.execute_complete(context, event) == trigger.druid_task_id


def test_ingest_skips_deferral_when_already_terminal(druid_conn, context):
    first = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(context)
    again = DruidIngestOperator(task_id="i", spec=spec(), deferrable=True, **FAST).execute({**context, "ti": FakeTI()})
    assert again == first and len(posts(druid_conn)) == 1  # adopted the SUCCESS task, no TaskDeferred


def test_failed_task_then_retry_submits_exactly_one_new_attempt(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="bad input row"))
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST)
    with pytest.raises(DruidTaskFailedError, match="bad input row"):
        op.execute(context)
    retry = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute({**context, "ti": FakeTI()})
    assert retry.endswith("_r1")
    assert len(posts(druid_conn)) == 2


def test_a_retried_append_whose_failed_attempt_published_fails_without_a_second_submit(druid_conn, context):
    """Issue 27 item 1: the worker died after the publish; the retry must not add the rows again."""
    druid_conn.plan_next_task(TaskPlan(failed_after_publish=True))
    op = DruidIngestOperator(task_id="i", spec=spec(append=True), deferrable=False, **FAST)
    with pytest.raises(DruidTaskFailedError, match="disappeared on the worker"):
        op.execute(context)
    retry = DruidIngestOperator(task_id="i", spec=spec(append=True), deferrable=False, **FAST)
    with pytest.raises(AirflowFailException, match="may have published") as info:  # fatal: no retry spent
        retry.execute({**context, "ti": FakeTI()})
    assert "after_failed_publish='resubmit'" in str(info.value) and 'SELECT COUNT(*) AS "stored_rows"' in str(
        info.value) and 'FROM "wiki"' in str(info.value)
    assert len(posts(druid_conn)) == 1
    resubmit = DruidIngestOperator(task_id="i", spec=spec(append=True), deferrable=False,
                                   after_failed_publish="resubmit", **FAST)
    assert resubmit.execute({**context, "ti": FakeTI()}).endswith("_r1")


def test_after_failed_publish_is_checked_at_dag_parse():
    from druid_ingest.errors import SpecValidationError

    with pytest.raises(SpecValidationError, match="after_failed_publish"):
        DruidIngestOperator(task_id="i", spec=spec(), after_failed_publish="always")


def test_unknown_or_missing_event_fails_loudly():
    op = DruidIngestOperator(task_id="i", spec=spec())
    for bad in (None, {"status": "weird"}):
        with pytest.raises(AirflowException, match="unexpected trigger event"):
            op.execute_complete({}, bad)


def test_on_kill_of_a_running_worker_wait_shuts_down_once(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            op.execute(context)
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.time() + 5
    while "druid_task_id" not in context["ti"].xcom and time.time() < deadline:
        time.sleep(0.02)
    op.on_kill()
    worker.join(10)
    assert len(shutdowns(druid_conn)) == 1
    assert errors and "FAILED" in str(errors[0])  # the shut-down task ends FAILED


def test_pool_slots_from_dict_spec_and_default_outlets():
    parallel = spec(max_subtasks=3)
    parallel["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/x", "filter": "*.json"}
    op = DruidIngestOperator(task_id="i", spec=parallel)
    assert op.pool_slots == 4
    assert [a.uri for a in op.outlets] == ["druid://druid_cluster_default/wiki"]
    assert DruidIngestOperator(task_id="j", spec="specs/x.json").pool_slots == 1
    assert DruidIngestOperator(task_id="k", spec=parallel, pool_slots=2).pool_slots == 2


def test_killing_a_deferred_one_shot_task_shuts_down_once(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    with pytest.raises(TaskDeferred) as deferred:
        DruidIngestOperator(task_id="i", spec=spec(), deferrable=True, **FAST).execute(context)
    trigger = deferred.value.trigger
    asyncio.run(trigger.cleanup())  # triggerer restart: nothing happens
    assert shutdowns(druid_conn) == []
    asyncio.run(trigger.on_kill())  # user marked the deferred task failed
    assert len(shutdowns(druid_conn)) == 1
    assert shutdowns(druid_conn)[0].path.endswith(f"/{trigger.druid_task_id}/shutdown")


def test_execution_timeout_shutdown_is_optional(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    with pytest.raises(TaskDeferred):
        DruidIngestOperator(task_id="i", spec=spec(), deferrable=True, **FAST).execute(context)
    keep = DruidIngestOperator(task_id="i", spec=spec(), shutdown_on_timeout=False)
    keep._druid_task_id, keep._timed_out = context["ti"].xcom["druid_task_id"], True
    keep.on_kill()  # what the task runner calls after AirflowTaskTimeout
    assert shutdowns(druid_conn) == []
    stop = DruidIngestOperator(task_id="i", spec=spec(), shutdown_on_kill=False)
    stop._druid_task_id, stop._timed_out = context["ti"].xcom["druid_task_id"], True
    stop.on_kill()  # shutdown_on_timeout defaults to True
    assert len(shutdowns(druid_conn)) == 1
    killed = DruidIngestOperator(task_id="i", spec=spec(), shutdown_on_timeout=False)
    killed._druid_task_id = context["ti"].xcom["druid_task_id"]
    killed.on_kill()  # a user's kill, not a timeout: shutdown_on_timeout does not keep the task
    assert len(shutdowns(druid_conn)) == 2


def _range_spec() -> dict:
    body = spec(max_subtasks=2, tuning={"forceGuaranteedRollup": True,
                                        "partitionsSpec": {"type": "range", "partitionDimensions": ["page"],
                                                          "targetRowsPerSegment": 5000000}})
    body["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/data/none", "filter": "*.json"}
    body["spec"]["ioConfig"]["dropExisting"] = True
    return body


def test_an_empty_input_fails_with_druids_message_unless_allowed(druid_conn, context):
    """Druid 33 answers SUCCESS with errorMsg "No valid rows for range partitioning..." for an input without rows
    and publishes nothing: that must not go green with the old data still in place. Here Druid's sampler is not
    sampler answers with a row the task will not have (a stand-in for an input that changed after the probe), so
    the after-task verdict must catch it."""
    druid_conn.add_fault(Fault("POST", SAMPLER, kind="status", status=200, content_type="application/json",
                               body='{"numRowsRead": 1, "numRowsIndexed": 1, "data": []}', times=None))
    druid_conn.plan_next_task(TaskPlan(rows_per_bucket=0))
    op = DruidIngestOperator(task_id="i", spec=_range_spec(), deferrable=False, **FAST)
    with pytest.raises(AirflowFailException) as empty:
        op.execute(context)
    text = str(empty.value)
    assert "published no segments" in text and "No valid rows for range partitioning" in text
    assert "allow_empty=True" in text and "idempotency_key" in text
    holiday = DruidIngestOperator(task_id="i", spec=_range_spec(), deferrable=False, allow_empty=True, **FAST)
    assert holiday.execute({**context, "ti": FakeTI()}) == context["ti"].xcom["druid_task_id"]  # adopted, accepted
    assert len(posts(druid_conn)) == 1


# ---- a non-UTC timetable: the run's interval is not on segmentGranularity buckets ----------------------------


def _berlin_context(day: int) -> dict:
    import pendulum

    start = pendulum.datetime(2026, 10, day, tz="Europe/Berlin")
    return {"ti": FakeTI(), "data_interval_start": start, "data_interval_end": start.add(days=1)}


def test_berlin_daily_run_with_day_segments_fails_before_any_http(druid_conn):
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST)
    with pytest.raises(AirflowFailException) as info:
        op.execute(_berlin_context(25))  # the DST day: 2026-10-24T22:00Z/2026-10-25T23:00Z
    text = str(info.value)
    assert "granularitySpec.intervals[0]" in text and "2026-10-24/2026-10-25 and 2026-10-25/2026-10-26" in text
    assert "23 hours" in text and "allow_unaligned=True" in text
    assert druid_conn.requests == []  # not one request: not even the capacity check


def test_berlin_daily_run_with_hour_segments_ingests(druid_conn):
    op = DruidIngestOperator(task_id="i", spec=spec(segment_granularity="HOUR"), deferrable=False, **FAST)
    assert op.execute(_berlin_context(25))
    [post] = posts(druid_conn)
    assert post.json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [
        "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z"]


def test_allow_unaligned_submits_and_keeps_the_loss_in_the_plans_warnings(druid_conn):
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, allow_unaligned=True, **FAST)
    assert any("not aligned" in w and "24 hours" in w for w in op.plan(_berlin_context(24)).warnings)
    op.execute(_berlin_context(24))
    assert len(posts(druid_conn)) == 1


def _dynamic_replace() -> dict:
    body = spec()
    body["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/data/none", "filter": "*.json"}
    body["spec"]["ioConfig"]["dropExisting"] = True
    return body


@pytest.mark.parametrize("deferrable", [False, True])
def test_a_dropexisting_replace_over_an_empty_input_fails_before_submitting(druid_conn, context, deferrable):
    """Druid 33 would publish tombstones over the interval (dynamic partitioning) and go green: the operator
    probes the input first and fails without retries, with no Druid task submitted and no task id pushed."""
    druid_conn.plan_next_task(TaskPlan(rows_per_bucket=0))
    op = DruidIngestOperator(task_id="i", spec=_dynamic_replace(), deferrable=deferrable, **FAST)
    with pytest.raises(AirflowFailException) as empty:
        op.execute(context)
    text = str(empty.value)
    assert "nothing was submitted" in text and "/data/none" in text and "allow_empty=True" in text, text
    assert posts(druid_conn) == [] and "druid_task_id" not in context["ti"].xcom
    assert len([r for r in druid_conn.requests if r.path == SAMPLER]) == 2  # the interval's rows, then the whole input


def test_allow_empty_submits_the_empty_replace_without_a_probe(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(rows_per_bucket=0))
    op = DruidIngestOperator(task_id="i", spec=_dynamic_replace(), deferrable=False, allow_empty=True, **FAST)
    assert op.execute(context) == context["ti"].xcom["druid_task_id"]
    assert len(posts(druid_conn)) == 1 and not [r for r in druid_conn.requests if r.path == SAMPLER]


def test_a_refused_probe_fails_the_task_before_submit_naming_state_write(druid_conn, context):
    druid_conn.add_fault(Fault("POST", SAMPLER, status=403, times=None, content_type="application/json",
                               body='{"Access-Check-Result": "Unauthorized"}'))
    op = DruidIngestOperator(task_id="i", spec=_dynamic_replace(), deferrable=False, **FAST)
    with pytest.raises(AirflowFailException) as info:  # fatal: a retry would be refused the same way
        op.execute(context)
    text = str(info.value)
    assert "STATE WRITE" in text and "HTTP 403" in text and "allow_empty=True" in text, text
    assert len(posts(druid_conn)) == 0


# ---- the pre-flight escape hatch (issue 18) ------------------------------------------------------------------


def test_a_preflight_refusal_names_the_hatch_and_preflight_warn_submits_as_is(druid_conn):
    typo = spec()
    typo["spec"]["ioConfig"]["dropExisitng"] = True  # Druid ignores the key; pre-flight refuses it
    context = {"ti": FakeTI()}
    with pytest.raises(AirflowFailException) as info:
        DruidIngestOperator(task_id="i", spec=typo, deferrable=False, **FAST).execute(context)
    assert "pass preflight='warn'" in str(info.value).splitlines()[-1]
    assert posts(druid_conn) == []
    op = DruidIngestOperator(task_id="i", spec=typo, deferrable=False, preflight="warn", **FAST)
    assert any("spec.ioConfig.dropExisitng" in w for w in op.plan({"ti": FakeTI()}).warnings)
    op.execute({"ti": FakeTI()})
    [post] = posts(druid_conn)
    assert post.json["spec"]["ioConfig"]["dropExisitng"] is True  # submitted as is


def test_an_unknown_preflight_value_fails_at_dag_parse():
    with pytest.raises(ValueError, match="preflight must be"):
        DruidIngestOperator(task_id="i", spec=spec(), preflight="skip", **FAST)


def test_detect_within_reaches_the_trigger_and_a_bad_one_fails_at_parse_time(druid_conn, context):
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=True, detect_within=0.5, **FAST)
    assert op._schedule.detect_within == 0.5 and op._schedule.initial == FAST["poll_interval"]
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    trigger = deferred.value.trigger
    assert trigger.serialize()[1]["detect_within"] == 0.5 and trigger.schedule.detect_within == 0.5
    with pytest.raises(ValueError, match=r"detect_within=-1"):
        DruidIngestOperator(task_id="bad", spec=spec(), detect_within=-1)
    with pytest.raises(ValueError, match=r"poll_interval=60.0 is longer than detect_within=30"):
        DruidIngestOperator(task_id="bad", spec=spec(), poll_interval=60, detect_within=30)
