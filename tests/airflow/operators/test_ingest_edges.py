"""DruidIngestOperator edges a mutation run found untested: the Asset event's ``queryable`` for each gate state,
``execution_timeout`` capping the wait, and the Druid task shut down when the wait itself times out."""

from __future__ import annotations

import copy
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from airflow.sdk import Asset
from airflow.sdk.exceptions import TaskDeferred
from airflow.sdk.execution_time.context import OutletEventAccessors
from druid_ingest.errors import DruidWaitTimeoutError
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.common.settings import DEFER_GRACE
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import XCOM_SERVED_BY
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

from ..conftest import FakeTI
from ..helpers import FAST, posts, run_trigger, shutdowns, spec

URI = "druid://druid_cluster_default/wiki"


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
    extra = _resume(ctx, loaded)
    assert extra["queryable"] is True and extra["served_by_task"] == extra["druid_task_id"]
    assert extra["superseded_by"] is None

    superseded = copy.deepcopy(loaded)  # a later replace's segments are what queries read: not OUR data
    superseded["handoff"]["result"].update(state="superseded", superseded_by="2099-01-01T00:00:00.000Z",
                                           superseded_by_task="later_task")
    extra = _resume(ctx, superseded)
    assert extra["handoff"] == "superseded" and extra["queryable"] is False
    assert extra["served_by_task"] == "later_task" and extra["superseded_by"] == "2099-01-01T00:00:00.000Z"

    never = copy.deepcopy(loaded)  # load rules keep it in deep storage only: green with on_never="pass", not queryable
    never["status"] = never["handoff"]["status"] = "never"
    never["handoff"]["result"].update(state="never", never=["seg1"])
    extra = _resume(ctx, never, on_never="pass")
    assert extra["handoff"] == "never" and extra["queryable"] is False


def test_a_later_ingestion_that_superseded_ours_is_named_on_the_event_and_in_xcom(druid_conn, ctx, caplog, capsys):
    """Our task's version was replaced before it was served (another run of the day): the gate passes
    (``superseded``), but what queries read is the later task's data, so the event must not say
    ``queryable: true`` for ours, and the task whose version is served is named for the row count."""
    druid_conn.pause_loading()
    druid_conn.plan_next_task(TaskPlan(duration=1.5))  # long enough for the trigger to see it hold its lock
    with pytest.raises(TaskDeferred) as deferred:
        DruidIngestOperator(task_id="i", spec=spec(), **FAST).execute(ctx)
    ours = deferred.value.trigger.druid_task_id
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(run_trigger, deferred.value.trigger)
        interval = posts(druid_conn)[0].json["spec"]["dataSchema"]["granularitySpec"]["intervals"]
        later = spec(intervals=interval)
        later["spec"]["dataSchema"]["dimensionsSpec"]["dimensions"].append("another_column")  # another spec
        with DruidHook().get_client() as client:
            while client.status(ours).state != "RUNNING" or druid_conn.task(ours).version is None:
                time.sleep(0.05)
            time.sleep(0.3)  # a few trigger polls while our task holds the day's lock
            winner = client.ensure_submitted(later).task_id
            for task_id in (ours, winner):  # the later one queues behind our lock: its version is higher
                assert client.wait_for_task(task_id, timeout=20).state == "SUCCESS"
        druid_conn.resume_loading()
        event = waiting.result(timeout=30)
    assert event["handoff"]["result"]["state"] == "superseded", event
    fresh = {**ctx, "outlet_events": OutletEventAccessors(), "ti": FakeTI()}
    caplog.set_level(logging.INFO)
    assert DruidIngestOperator(task_id="i", spec=spec(), **FAST).execute_complete(fresh, event) == ours
    extra = dict(fresh["outlet_events"][Asset(URI)].extra)
    assert extra["druid_task_id"] == ours and extra["handoff"] == "superseded"
    assert extra["queryable"] is False and extra["served_by_task"] == winner
    assert extra["superseded_by"] == druid_conn.task(winner).version
    assert fresh["ti"].xcom[XCOM_SERVED_BY] == winner  # the row count downstream reads the winner's data
    logged = caplog.text + capsys.readouterr().out  # Airflow's task logger writes through structlog
    assert f"served version is Druid task {winner}'s" in logged


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
    with pytest.raises(DruidWaitTimeoutError):
        op.execute(ctx)
    assert time.time() - started < 10  # one second (the floor), not the hour of task_timeout


def test_a_wait_that_times_out_shuts_the_druid_task_down(druid_conn, ctx):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    op = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, task_timeout=0.5, **FAST)
    with pytest.raises(DruidWaitTimeoutError):
        op.execute(ctx)
    druid_task_id = ctx["ti"].xcom["druid_task_id"]
    assert [r.path for r in shutdowns(druid_conn)] == [f"/druid/indexer/v1/task/{druid_task_id}/shutdown"]


def test_a_deferred_wait_that_timed_out_shuts_the_druid_task_down_unless_told_not_to(druid_conn, ctx):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    deferred, _ = _deferred(ctx, task_timeout=0.5)
    event = run_trigger(deferred.trigger)
    assert event["status"] == "timeout", event
    keep = DruidIngestOperator(task_id="i", spec=spec(), shutdown_on_timeout=False, **FAST)
    with pytest.raises(DruidWaitTimeoutError):
        keep.execute_complete(ctx, event)
    assert shutdowns(druid_conn) == []
    stop = DruidIngestOperator(task_id="i", spec=spec(), **FAST)
    with pytest.raises(DruidWaitTimeoutError):
        stop.execute_complete(ctx, event)
    druid_task_id = deferred.trigger.druid_task_id
    assert [r.path for r in shutdowns(druid_conn)] == [f"/druid/indexer/v1/task/{druid_task_id}/shutdown"]
