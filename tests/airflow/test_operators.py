"""Operators and sensors called directly (no scheduler, no DB) against FakeDruid."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from airflow.sdk.exceptions import AirflowException, AirflowFailException, TaskDeferred

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator, run_intervals
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor
from airflow_provider_druid_ingest.testing import TaskPlan, index_parallel_spec
from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

from .conftest import FakeTI

TASK = "/druid/indexer/v1/task"
DAY = "2026-07-16T00:00:00Z/2026-07-17T00:00:00Z"
FAST = {"poll_interval": 0.05, "max_poll_interval": 0.2}


def posts(fake) -> list:
    return [r for r in fake.requests if r.method == "POST" and r.path == TASK]


def shutdowns(fake) -> list:
    return [r for r in fake.requests if r.method == "POST" and r.path.endswith("/shutdown")]


def spec(**kw) -> dict:
    return index_parallel_spec("wiki", **kw)


def run_trigger(trigger) -> dict:
    async def first():
        return (await trigger.run().__anext__()).payload

    return asyncio.run(first())


def test_default_intervals_are_the_data_interval_in_druid_iso(context):
    assert run_intervals(context) == [DAY]
    assert run_intervals({"data_interval_start": None, "data_interval_end": None}) is None


def test_submit_pushes_id_and_url_and_a_retry_adopts(druid_conn, context):
    op = DruidSubmitOperator(task_id="submit", spec=spec())
    druid_task_id = op.execute(context)
    assert context["ti"].xcom["druid_task_id"] == druid_task_id
    assert context["ti"].xcom["druid_task_url"].endswith(druid_task_id)
    assert DAY.replace("-", "").replace(":", "")[:8] in druid_task_id  # the run's interval is in the id
    again = DruidSubmitOperator(task_id="submit", spec=spec()).execute({**context, "ti": FakeTI()})
    assert again == druid_task_id
    assert len(posts(druid_conn)) == 1
    assert posts(druid_conn)[0].json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [DAY]


def test_idempotency_key_forces_a_new_task(druid_conn, context):
    first = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    second = DruidSubmitOperator(task_id="s", spec=spec(), idempotency_key="fix-1").execute(context)
    assert first != second and len(posts(druid_conn)) == 2


def test_invalid_spec_fails_before_any_http(druid_conn, context):
    bad = spec()
    bad["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = "FORTNIGHT"
    del bad["spec"]["dataSchema"]["timestampSpec"]
    with pytest.raises(AirflowFailException) as err:
        DruidIngestOperator(task_id="i", spec=bad).execute(context)
    assert "segmentGranularity" in str(err.value) and "timestampSpec" in str(err.value)
    assert druid_conn.requests == []


def test_string_spec_and_nested_json_suffix_are_not_template_files(druid_conn, context):
    import json

    body = spec()
    body["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/x", "filter": "*.json"}
    op = DruidSubmitOperator(task_id="s", spec=body, input_locations=["/data/{{ ds }}"])
    rendered = op.render_template(op.spec, {"ds": "2026-07-16"})
    assert rendered["spec"]["ioConfig"]["inputSource"]["filter"] == "*.json"  # not loaded as a template
    assert op.render_template(op.input_locations, {"ds": "2026-07-16"}) == ["/data/2026-07-16"]
    op.spec = json.dumps(body)
    op.input_locations = ["/data/2026-07-16"]
    op.execute(context)
    assert posts(druid_conn)[0].json["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/data/2026-07-16"


def test_ingest_defers_after_pushing_refs_then_completes(druid_conn, context):
    op = DruidIngestOperator(task_id="ingest", spec=spec(), deferrable=True, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    trigger = deferred.value.trigger
    assert isinstance(trigger, DruidTaskTrigger) and deferred.value.method_name == "execute_task_complete"
    assert context["ti"].xcom["druid_task_id"] == trigger.druid_task_id  # pushed BEFORE deferring
    assert "druid_task_url" in context["ti"].xcom
    event = run_trigger(trigger)
    with pytest.raises(TaskDeferred) as handoff:
        DruidIngestOperator(task_id="ingest", spec=spec(), deferrable=True, **FAST).execute_task_complete(
            context, event, **deferred.value.kwargs
        )
    assert isinstance(handoff.value.trigger, DruidHandoffTrigger)
    done = run_trigger(handoff.value.trigger)
    assert op.execute_handoff_complete(context, done) == trigger.druid_task_id


def test_ingest_skips_deferral_when_already_terminal(druid_conn, context):
    first = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(context)
    again = DruidIngestOperator(task_id="i", spec=spec(), deferrable=True, **FAST).execute({**context, "ti": FakeTI()})
    assert again == first and len(posts(druid_conn)) == 1  # adopted the SUCCESS task, no TaskDeferred


def test_failed_task_then_retry_submits_exactly_one_new_attempt(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="bad input row"))
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST)
    with pytest.raises(AirflowException, match="bad input row"):
        op.execute(context)
    retry = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute({**context, "ti": FakeTI()})
    assert retry.endswith("_r1")
    assert len(posts(druid_conn)) == 2


def test_unknown_or_missing_event_fails_loudly():
    op = DruidIngestOperator(task_id="i", spec=spec())
    for bad in (None, {"status": "weird"}):
        with pytest.raises(AirflowException, match="unexpected trigger event"):
            op.execute_task_complete({}, bad)
        with pytest.raises(AirflowException, match="unexpected trigger event"):
            DruidTaskSensor(task_id="w", druid_task_id="x").execute_complete({}, bad)


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


def test_submit_operator_on_kill_does_not_shut_down(druid_conn, context):
    op = DruidSubmitOperator(task_id="s", spec=spec())
    op.execute(context)
    op.on_kill()
    assert shutdowns(druid_conn) == []


def test_pool_slots_from_dict_spec_and_default_outlets():
    parallel = spec(max_subtasks=3)
    parallel["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/x", "filter": "*.json"}
    op = DruidIngestOperator(task_id="i", spec=parallel)
    assert op.pool_slots == 4
    assert [a.uri for a in op.outlets] == ["druid://druid_cluster_default/wiki"]
    assert DruidIngestOperator(task_id="j", spec="specs/x.json").pool_slots == 1
    assert DruidIngestOperator(task_id="k", spec=parallel, pool_slots=2).pool_slots == 2


def test_sensors_poke_mode(druid_conn, context):
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    sensor = DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1)
    assert sensor.execute(context) == druid_task_id
    assert context["ti"].xcom["druid_task_url"].endswith(druid_task_id)
    gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1)
    assert gate.execute(context) == druid_task_id


def test_task_sensor_fails_without_retry_on_failed_task(druid_conn, context, caplog):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="Max parse exceptions exceeded", unparseable=2))
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    sensor = DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=True, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        sensor.execute(context)
    event = run_trigger(deferred.value.trigger)
    with pytest.raises(AirflowFailException, match="Max parse exceptions exceeded"):
        sensor.execute_complete(context, event)
    assert shutdowns(druid_conn) == []


def test_handoff_sensor_without_data_interval_uses_the_task_intervals(druid_conn, context):
    druid_task_id = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, wait_for_handoff=False,
                                        **FAST).execute(context)
    gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1)
    assert gate.execute({"ti": FakeTI()}) == druid_task_id
    assert gate._target is not None and list(gate._target.intervals) == [DAY]


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


LONG_ERROR = "Max parse exceptions[0] exceeded: " + "row problem; " * 120 + "END-OF-DRUID-MESSAGE"


def _fail_next(fake) -> None:
    fake.plan_next_task(TaskPlan(outcome="FAILED", error_msg=LONG_ERROR, unparseable=4))


def _failing_spec() -> dict:
    return spec(tuning={"maxSavedParseExceptions": 2})  # sequential + dynamic: Druid writes a report


def _assert_explains(text: str) -> None:
    assert LONG_ERROR in text  # whole, although Druid's status cuts errorMsg at 1024 characters
    assert "rows: processed=" in text and "unparseable=" in text  # row stats
    assert "fake,row,0" in text  # the first unparseable events


def test_every_class_raises_the_full_failure_text(druid_conn, context):
    """The exception, not only the log, explains a FAILED Druid task: it is what on_failure_callback sees."""
    _fail_next(druid_conn)
    op = DruidIngestOperator(task_id="i", spec=_failing_spec(), deferrable=False, **FAST)
    with pytest.raises(AirflowException) as worker:
        op.execute(context)
    _assert_explains(str(worker.value))
    druid_task_id = context["ti"].xcom["druid_task_id"]

    deferred = DruidIngestOperator(task_id="i", spec=_failing_spec(), **FAST)
    event = run_trigger(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST))
    with pytest.raises(AirflowException) as resumed:
        deferred.execute_task_complete(context, event)
    _assert_explains(str(resumed.value))

    with pytest.raises(AirflowFailException) as poked:
        DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False).poke(context)
    _assert_explains(str(poked.value))
    with pytest.raises(AirflowFailException) as sensed:
        DruidTaskSensor(task_id="w", druid_task_id=druid_task_id).execute_complete(context, event)
    _assert_explains(str(sensed.value))

    with pytest.raises(AirflowFailException) as gate:
        DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, deferrable=False).poke(context)
    _assert_explains(str(gate.value))


def test_handoff_sensor_refuses_a_datasource_the_task_never_wrote(druid_conn, context):
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1).execute(context)
    sensor = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, datasource="other", deferrable=False)
    with pytest.raises(AirflowFailException, match="'wiki', not 'other'"):
        sensor.poke(context)
