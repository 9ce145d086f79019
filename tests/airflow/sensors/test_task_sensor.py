"""DruidTaskSensor: poke and deferrable modes, FAILED fails without retry, the version ceiling XCom."""

from __future__ import annotations

import pytest
from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout, TaskDeferred
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

from ..helpers import FAST, run_trigger, shutdowns, spec


def test_poke_mode_succeeds_and_pushes_the_console_link(druid_conn, context):
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    sensor = DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1)
    assert sensor.execute(context) == druid_task_id
    assert context["ti"].xcom["druid_task_url"].endswith(druid_task_id)


def test_deferred_success_pushes_the_version_ceiling(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(duration=1.0))
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    sensor = DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        sensor.execute(context)
    event = run_trigger(deferred.value.trigger)
    assert sensor.execute_complete(context, event) == druid_task_id
    assert context["ti"].xcom["druid_version_ceiling"] == event["version_ceiling"] and event["version_ceiling"]


def test_task_sensor_fails_without_retry_on_failed_task(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="Max parse exceptions exceeded", unparseable=2))
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    sensor = DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=True, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        sensor.execute(context)
    event = run_trigger(deferred.value.trigger)
    with pytest.raises(AirflowFailException, match="Max parse exceptions exceeded"):
        sensor.execute_complete(context, event)
    assert shutdowns(druid_conn) == []


def test_unknown_id_fails_at_once_and_bad_events_fail_loudly(druid_conn, context):
    with pytest.raises(AirflowFailException, match="no task with id"):
        DruidTaskSensor(task_id="w", druid_task_id="ingest_nope", deferrable=False).poke(context)
    with pytest.raises(AirflowFailException, match="rendered empty"):
        DruidTaskSensor(task_id="w", druid_task_id="None", deferrable=False).poke(context)
    for bad in (None, {"status": "weird"}):
        with pytest.raises(AirflowException, match="unexpected trigger event"):
            DruidTaskSensor(task_id="w", druid_task_id="x").execute_complete({}, bad)


def test_timeout_event_is_a_sensor_timeout(druid_conn, context):
    event = {"status": "timeout", "druid_task_id": "x", "message": "Druid task x still RUNNING after 5s"}
    with pytest.raises(AirflowSensorTimeout, match="still RUNNING"):
        DruidTaskSensor(task_id="w", druid_task_id="x").execute_complete(context, event)


def test_detect_within_reaches_the_trigger_and_a_bad_one_fails_at_parse_time(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(duration=1.0))
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    sensor = DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, detect_within=0.3, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        sensor.execute(context)
    trigger = deferred.value.trigger
    assert trigger.serialize()[1]["detect_within"] == 0.3 and trigger.schedule.detect_within == 0.3
    assert sensor.execute_complete(context, run_trigger(trigger)) == druid_task_id
    with pytest.raises(ValueError, match=r"detect_within=0"):
        DruidTaskSensor(task_id="bad", druid_task_id="x", detect_within=0)
