"""DruidMsqIngestOperator against FakeDruid over real sockets: the native operator's gates, MSQ's plan."""

from __future__ import annotations

import asyncio

import pytest
from airflow.sdk.exceptions import AirflowFailException, TaskDeferred
from druid_ingest.errors import DruidTaskFailedError
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator
from airflow_provider_druid_ingest.triggers.ingestion import DruidIngestionTrigger

from ..conftest import FakeTI
from ..helpers import FAST, run_trigger, shutdowns

SQL = """REPLACE INTO "msq_op"
OVERWRITE WHERE __time >= TIMESTAMP '{{ interval_start }}' AND __time < TIMESTAMP '{{ interval_end }}'
SELECT TIME_PARSE("ts") AS __time, "page" FROM TABLE(EXTERN('{}', '{}')) EXTEND ("ts" VARCHAR, "page" VARCHAR)
PARTITIONED BY DAY"""


def sql_posts(fake) -> list:
    return fake.requests_matching("POST", "/druid/v2/sql/task")


def op(**kw) -> DruidMsqIngestOperator:
    return DruidMsqIngestOperator(task_id="msq", sql=kw.pop("sql", SQL), datasource="msq_op", **FAST, **kw)


def test_defers_on_the_one_shot_trigger_then_adopts_on_rerun(druid_conn, context):
    with pytest.raises(TaskDeferred) as deferred:
        op(deferrable=True).execute(context)
    trigger = deferred.value.trigger
    assert isinstance(trigger, DruidIngestionTrigger)
    assert trigger.druid_task_id.startswith("query-msq_msq_op_20260716-20260717_")
    assert trigger.intervals == ["2026-07-16T00:00:00Z/2026-07-17T00:00:00Z"] and not trigger.append
    body = sql_posts(druid_conn)[0].json
    assert "TIMESTAMP '2026-07-16 00:00:00' AND __time < TIMESTAMP '2026-07-17 00:00:00'" in body["query"]
    assert "query-" + body["context"]["sqlQueryId"] == trigger.druid_task_id
    event = run_trigger(trigger)
    assert event["status"] == "success" and event["handoff"]["result"]["state"] == "loaded", event
    assert op().execute_complete(context, event) == trigger.druid_task_id
    again = op(deferrable=True).execute({**context, "ti": FakeTI()})  # SUCCESS task adopted: no deferral, no POST
    assert again == trigger.druid_task_id and len(sql_posts(druid_conn)) == 1


def test_failure_is_summarised_from_the_msq_report(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="InsertTimeOutOfBounds: Query generated time "
                                       "chunk [2026-07-18/2026-07-19] out of bounds specified by replaceTimeChunks"))
    with pytest.raises(DruidTaskFailedError, match="InsertTimeOutOfBounds: Query generated time chunk"):
        op(deferrable=False).execute(context)


def test_preflight_fails_without_http(druid_conn, context):
    bad = SQL.replace("{{ interval_end }}", "2026-07-18 00:00:00")
    expected = r"(?s)invalid MSQ statement.*sql\.OVERWRITE.*does not match the run"
    with pytest.raises(AirflowFailException, match=expected):
        op(sql=bad).execute(context)
    with pytest.raises(AirflowFailException, match="OVERWRITE ALL"):
        op(sql=SQL.split("OVERWRITE")[0] + "OVERWRITE ALL SELECT 1 FROM t PARTITIONED BY DAY").execute(context)
    assert druid_conn.requests == []


def test_killing_the_deferred_task_shuts_the_controller_down(druid_conn, context):
    druid_conn.plan_next_task(TaskPlan(duration=30.0))
    with pytest.raises(TaskDeferred) as deferred:
        op(deferrable=True).execute(context)
    trigger = deferred.value.trigger
    asyncio.run(trigger.on_kill())
    assert [r.path for r in shutdowns(druid_conn)] == [f"/druid/indexer/v1/task/{trigger.druid_task_id}/shutdown"]


def test_pool_slots_and_outlets_from_the_msq_arguments():
    o = op(query_context={"maxNumTasks": 3})
    assert o.pool_slots == 3 and [a.uri for a in o.outlets] == ["druid://druid_cluster_default/msq_op"]
    assert op().pool_slots == 2
