"""DruidIngestOperator edges a mutation run found untested: the Asset event's ``queryable`` for each gate state,
``execution_timeout`` capping the wait, and the Druid task shut down when the wait itself times out."""

from __future__ import annotations

import copy
import time
from datetime import timedelta
from typing import Any

import pytest
from airflow.sdk import Asset
from airflow.sdk.exceptions import AirflowException, TaskDeferred
from airflow.sdk.execution_time.context import OutletEventAccessors
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.common.settings import DEFER_GRACE
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

from ..conftest import FakeTI
from ..helpers import FAST, run_trigger, shutdowns, spec

URI = "druid://druid_cluster_default/wiki"


@pytest.fixture
def ctx(context):
    return {**context, "outlet_events": OutletEventAccessors()}


def _loaded_event(ctx: dict[str, Any]) -> dict[str, Any]:
    """The event of a real deferred ingestion against the fake (its gate: ``loaded``)."""
    with pytest.raises(TaskDeferred) as deferred:
        DruidIngestOperator(task_id="i", spec=spec(), **FAST).execute(ctx)
    event = run_trigger(deferred.value.trigger)
    assert event["handoff"]["result"]["state"] == "loaded", event
    return event


def _resume(ctx: dict[str, Any], event: dict[str, Any], **kw: Any) -> dict[str, Any]:
    fresh = {**ctx, "outlet_events": OutletEventAccessors(), "ti": FakeTI()}
    DruidIngestOperator(task_id="i", spec=spec(), **FAST, **kw).execute_complete(fresh, event)
    return dict(fresh["outlet_events"][Asset(URI)].extra)


def test_queryable_on_the_event_follows_the_gate_state(druid_conn, ctx):
    loaded = _loaded_event(ctx)
    assert _resume(ctx, loaded)["queryable"] is True

    superseded = copy.deepcopy(loaded)  # a later replace's segments are what queries read: still queryable
    superseded["handoff"]["result"].update(state="superseded", superseded_by="2099-01-01T00:00:00.000Z")
    extra = _resume(ctx, superseded)
    assert extra["handoff"] == "superseded" and extra["queryable"] is True

    never = copy.deepcopy(loaded)  # load rules keep it in deep storage only: green with on_never="pass", not queryable
    never["status"] = never["handoff"]["status"] = "never"
    never["handoff"]["result"].update(state="never", never=["seg1"])
    extra = _resume(ctx, never, on_never="pass")
    assert extra["handoff"] == "never" and extra["queryable"] is False


def _deferred(ctx: dict[str, Any], **kw: Any) -> tuple[TaskDeferred, float]:
    before = time.time()
    with pytest.raises(TaskDeferred) as deferred:
        DruidIngestOperator(task_id="i", spec=spec(), **FAST, **kw).execute({**ctx, "ti": FakeTI()})
    return deferred.value, before


@pytest.mark.parametrize(
    ("task_timeout", "execution_timeout", "waits"),
    [
        (3600.0, timedelta(seconds=30), 30.0),  # execution_timeout ends first: the wait is capped by it
        (20.0, timedelta(hours=2), 20.0),  # task_timeout ends first: it stays
        (3600.0, timedelta(milliseconds=200), 1.0),  # never below one second
    ],
)
def test_execution_timeout_caps_the_deferred_wait(druid_conn, ctx, task_timeout, execution_timeout, waits):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    deferred, before = _deferred(ctx, task_timeout=task_timeout, handoff_timeout=50.0,
                                 execution_timeout=execution_timeout)
    trigger = deferred.trigger
    assert before + waits - 0.5 <= trigger.end_time <= time.time() + waits
    assert deferred.timeout == timedelta(seconds=waits + 50.0 + DEFER_GRACE)


def test_execution_timeout_caps_the_wait_in_the_worker(druid_conn, ctx):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, task_timeout=3600.0,
                             execution_timeout=timedelta(milliseconds=300), **FAST)
    started = time.time()
    with pytest.raises(AirflowException):
        op.execute(ctx)
    assert time.time() - started < 10  # one second (the floor), not the hour of task_timeout


def test_a_wait_that_times_out_shuts_the_druid_task_down(druid_conn, ctx):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, task_timeout=0.5, **FAST)
    with pytest.raises(AirflowException):
        op.execute(ctx)
    druid_task_id = ctx["ti"].xcom["druid_task_id"]
    assert [r.path for r in shutdowns(druid_conn)] == [f"/druid/indexer/v1/task/{druid_task_id}/shutdown"]


def test_a_deferred_wait_that_timed_out_shuts_the_druid_task_down_unless_told_not_to(druid_conn, ctx):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    deferred, _ = _deferred(ctx, task_timeout=0.5)
    event = run_trigger(deferred.trigger)
    assert event["status"] == "timeout", event
    keep = DruidIngestOperator(task_id="i", spec=spec(), shutdown_on_timeout=False, **FAST)
    with pytest.raises(AirflowException):
        keep.execute_complete(ctx, event)
    assert shutdowns(druid_conn) == []
    stop = DruidIngestOperator(task_id="i", spec=spec(), **FAST)
    with pytest.raises(AirflowException):
        stop.execute_complete(ctx, event)
    druid_task_id = deferred.trigger.druid_task_id
    assert [r.path for r in shutdowns(druid_conn)] == [f"/druid/indexer/v1/task/{druid_task_id}/shutdown"]
