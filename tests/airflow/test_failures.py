"""Every Airflow class explains a FAILED Druid task in its exception (what on_failure_callback and alerts get),
not only in its log."""

from __future__ import annotations

import pytest
from airflow.sdk.exceptions import AirflowFailException
from druid_ingest.errors import DruidTaskFailedError
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor
from airflow_provider_druid_ingest.triggers.ingestion import DruidIngestionTrigger
from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

from .helpers import FAST, run_trigger, spec

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
    with pytest.raises(DruidTaskFailedError) as worker:
        op.execute(context)
    _assert_explains(str(worker.value))
    druid_task_id = context["ti"].xcom["druid_task_id"]

    deferred = DruidIngestOperator(task_id="i", spec=_failing_spec(), **FAST)
    with pytest.raises(DruidTaskFailedError) as resumed:
        deferred.execute_complete(context, run_trigger(DruidIngestionTrigger(druid_task_id, **FAST)))
    _assert_explains(str(resumed.value))
    event = run_trigger(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST))

    with pytest.raises(AirflowFailException) as poked:
        DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False).poke(context)
    _assert_explains(str(poked.value))
    with pytest.raises(AirflowFailException) as sensed:
        DruidTaskSensor(task_id="w", druid_task_id=druid_task_id).execute_complete(context, event)
    _assert_explains(str(sensed.value))

    with pytest.raises(AirflowFailException) as gate:
        DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, deferrable=False).poke(context)
    _assert_explains(str(gate.value))
