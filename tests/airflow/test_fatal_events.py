"""A fatal answer the triggerer met (401, 403, 404, a refused redirect) fails the task without Airflow retries,
exactly as the same answer in a worker does; found by the chaos run (tests/chaos), where a deferred one-shot
ingestion burned an Airflow retry on a 401."""

from __future__ import annotations

import pytest
from airflow.sdk.exceptions import AirflowFailException, TaskDeferred
from druid_ingest.errors import DruidAuthError, DruidServerError
from druid_ingest.ops._outcomes import HandoffOutcome, IngestionOutcome, TaskOutcome
from druid_ingest.testing import Fault, TaskPlan

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

from .helpers import FAST, run_trigger, spec


def test_a_401_during_the_deferred_wait_fails_without_retry(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(duration=0.5))
    with pytest.raises(TaskDeferred) as deferred:
        DruidIngestOperator(task_id="i", spec=spec(), deferrable=True, **FAST).execute(context)
    druid_conn.add_fault(Fault(method="GET", path=r"/status$", kind="status", status=401, body="denied"))
    event = run_trigger(deferred.value.trigger)
    assert event["status"] == "error" and event["task"]["fatal"] is True, event
    with pytest.raises(AirflowFailException, match="HTTP 401"):
        DruidIngestOperator(task_id="i", spec=spec(), **FAST).execute_complete(context, event)


def test_transient_errors_in_events_stay_retryable():
    event = TaskOutcome.errored("t1", DruidServerError("Druid server error: boom", status=502)).to_dict()
    assert event["fatal"] is False
    with pytest.raises(DruidServerError) as raised:
        DruidTaskSensor(task_id="w", druid_task_id="t1").execute_complete({}, event)
    assert not isinstance(raised.value, AirflowFailException)


def test_fatal_errors_in_task_and_handoff_events_fail_the_sensors():
    denied = DruidAuthError("Druid not permitted: Unauthorized", status=403)
    with pytest.raises(AirflowFailException, match="not permitted"):
        DruidTaskSensor(task_id="w", druid_task_id="t1").execute_complete({}, TaskOutcome.errored("t1", denied)
                                                                           .to_dict())
    handoff = HandoffOutcome.errored("t1", denied).to_dict()
    with pytest.raises(AirflowFailException, match="not permitted"):
        DruidHandoffSensor(task_id="h", druid_task_id="t1").execute_complete({}, handoff)
    both = IngestionOutcome(TaskOutcome.errored("t1", denied)).to_dict()
    assert IngestionOutcome.from_dict(both).task.fatal
    old = {k: v for k, v in TaskOutcome.errored("t1", denied).to_dict().items() if k != "fatal"}
    assert TaskOutcome.from_dict(old).fatal is False  # an event from before this field: retryable, as it was
