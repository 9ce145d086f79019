"""After a deferral the task log must end at a named step, so a log that stops says where and why.

Airflow's supervisor makes every Execution API call (XCom, the final state with the Asset events) for the task;
when the api-server is down it retries in the supervisor (whose log is the executor's, not the task's) and the
task log just stops (docs/deployment.md §5, "The task log stops at Pre Execute / after resume"). So the operator
logs a line before each step that needs the API; these tests pin the lines, their order, and that a failing
XCom push leaves the log ending at that step's line.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from airflow.sdk import Asset
from airflow.sdk.exceptions import TaskDeferred
from airflow.sdk.execution_time.context import OutletEventAccessors

from airflow_provider_druid_ingest.links import XCOM_SERVED_BY
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

from ..conftest import FakeTI
from ..helpers import FAST, run_trigger, spec

URI = "druid://druid_cluster_default/wiki"
RESUMED = "Resumed from the triggerer"
PUSHING = f"Pushing XCom {XCOM_SERVED_BY}"
HANDING = "handing Airflow the return value"


class DownTI(FakeTI):
    """The api-server is down: the supervisor's retries ran out and the push fails in the task."""

    def xcom_push(self, key: str, value: object) -> None:
        raise RuntimeError("API_SERVER_ERROR: [Errno 111] Connection refused")


@pytest.fixture
def event(druid_conn, context) -> dict[str, Any]:
    with pytest.raises(TaskDeferred) as deferred:
        DruidIngestOperator(task_id="i", spec=spec(), **FAST).execute({**context, "ti": FakeTI()})
    return run_trigger(deferred.value.trigger)


def _ours(caplog, capsys) -> list[str]:
    """Our operator's lines, in order (Airflow's task logger writes through structlog to stdout)."""
    text = capsys.readouterr().out + "\n" + caplog.text
    marks = (RESUMED, PUSHING, "Asset event", HANDING, "is queryable")
    return [line for line in text.splitlines() if any(m in line for m in marks)]


def test_a_resumed_task_names_each_step_that_needs_the_execution_api_in_order(event, context, caplog, capsys):
    caplog.set_level(logging.INFO)
    ctx = {**context, "ti": FakeTI(), "outlet_events": OutletEventAccessors()}
    druid_task_id = DruidIngestOperator(task_id="i", spec=spec(), **FAST).execute_complete(ctx, event)
    lines = _ours(caplog, capsys)
    order = [next(i for i, line in enumerate(lines) if m in line) for m in (RESUMED, PUSHING, "Asset event", HANDING)]
    assert order == sorted(order), lines
    assert druid_task_id in lines[order[0]] and "success" in lines[order[0]]
    assert ctx["ti"].xcom[XCOM_SERVED_BY] == druid_task_id
    assert "Execution API" in lines[order[-1]] and URI in lines[order[2]]
    assert dict(ctx["outlet_events"][Asset(URI)].extra)["queryable"] is True


def test_an_api_failure_at_the_xcom_push_leaves_the_log_ending_at_that_step(event, context, caplog, capsys):
    caplog.set_level(logging.INFO)
    ctx = {**context, "ti": DownTI(), "outlet_events": OutletEventAccessors()}
    with pytest.raises(RuntimeError, match="API_SERVER_ERROR"):
        DruidIngestOperator(task_id="i", spec=spec(), **FAST).execute_complete(ctx, event)
    lines = _ours(caplog, capsys)
    assert lines and PUSHING in lines[-1] and "Execution API" in lines[-1], lines
    assert not any(HANDING in line for line in lines)
