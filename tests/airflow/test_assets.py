"""The Druid Asset: its URI handler, the event's extra from the one-shot operator and the handoff sensor (against
the fake over real sockets), and no event when the ingestion fails (a real ``dag.test()`` run, events read back
from the metadata DB)."""

from __future__ import annotations

import pendulum
import pytest
from airflow.sdk import Asset
from airflow.sdk.exceptions import AirflowFailException, TaskDeferred
from airflow.sdk.execution_time.context import OutletEventAccessors
from druid_ingest.errors import DruidTaskFailedError
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.common.assets import asset_uri, druid_asset
from airflow_provider_druid_ingest.links import XCOM_SERVED_BY
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

from .conftest import FakeTI
from .helpers import DAY, FAST, run_trigger, spec

URI = "druid://druid_cluster_default/wiki"


def extra_of(ctx, uri: str = URI) -> dict:
    return dict(ctx["outlet_events"][Asset(uri)].extra)


def assert_extra(extra: dict, druid_task_id: str, *, handoff: str = "loaded", queryable: bool = True) -> None:
    served = druid_task_id if handoff == "loaded" else None  # superseded: tests/airflow/operators/test_ingest_edges
    assert extra == {"druid_task_id": druid_task_id, "conn_id": "druid_cluster_default", "datasource": "wiki",
                     "interval": DAY, "intervals": [DAY], "handoff": handoff, "queryable": queryable,
                     "served_by_task": served, "superseded_by": None}


def test_provider_registers_a_uri_handler_that_rejects_malformed_druid_uris():
    from airflow.sdk.providers_manager_runtime import ProvidersManagerTaskRuntime

    from airflow_provider_druid_ingest.common.assets import sanitize_uri

    assert ProvidersManagerTaskRuntime().asset_uri_handlers["druid"] is sanitize_uri
    assert Asset(URI + "/").uri == URI and Asset(URI).normalized_uri == URI
    for bad in ("druid://druid_cluster_default/a/b", "druid:///wiki", "druid://c/wiki?x=1"):
        with pytest.raises(ValueError, match="Druid asset URI"):
            Asset(bad)
    with pytest.raises(ValueError, match=r"datasource='a/b'"):
        asset_uri("c", "a/b")
    assert druid_asset("wiki").uri == URI


def test_one_shot_operator_deferred_puts_task_id_and_interval_on_the_event(druid_conn, ctx):
    op = DruidIngestOperator(task_id="ingest", spec=spec(), **FAST)
    assert [o.uri for o in op.outlets] == [URI]
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(ctx)
    assert extra_of(ctx) == {}  # nothing before the wait ended
    resumed = DruidIngestOperator(task_id="ingest", spec=spec(), **FAST)
    druid_task_id = resumed.execute_complete(ctx, run_trigger(deferred.value.trigger))
    assert_extra(extra_of(ctx), druid_task_id)


def test_one_shot_operator_in_the_worker_puts_the_extra_too(druid_conn, ctx):
    druid_task_id = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    assert_extra(extra_of(ctx), druid_task_id)


def test_failed_ingestion_leaves_the_event_untouched(druid_conn, ctx):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="bad input row"))
    with pytest.raises(DruidTaskFailedError, match="bad input row"):
        DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    assert extra_of(ctx) == {}


def test_no_default_asset_without_the_handoff_gate():
    op = DruidIngestOperator(task_id="i", spec=spec(), wait_for_handoff=False)
    assert op.outlets == []  # green would not mean queryable


def test_users_own_outlets_keep_their_events_unannotated(druid_conn, ctx):
    mine = Asset("s3://bucket/marker")
    druid_task_id = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, outlets=[mine, Asset(URI)],
                                        **FAST).execute(ctx)
    assert extra_of(ctx, "s3://bucket/marker") == {}
    assert extra_of(ctx)["druid_task_id"] == druid_task_id


def _succeeded(context, key: str | None = None) -> str:
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec(), idempotency_key=key).execute(context)
    DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1).execute(context)
    return druid_task_id


def test_handoff_sensor_poke_mode_and_deferred_resume_put_the_extra(druid_conn, ctx):
    druid_task_id = _succeeded(ctx)
    gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, datasource="wiki", deferrable=False,
                              poke_interval=0.1)
    assert [o.uri for o in gate.outlets] == [URI]
    assert gate.execute(ctx) == druid_task_id
    assert_extra(extra_of(ctx), druid_task_id)

    deferred_ctx = {**ctx, "outlet_events": OutletEventAccessors(), "ti": FakeTI()}
    druid_conn.pause_loading()
    again = _succeeded(deferred_ctx, key="again")  # a new Druid task, its segments not loaded yet
    sensor = DruidHandoffSensor(task_id="h", druid_task_id=again, datasource="wiki", timeout=10, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        sensor.execute(deferred_ctx)
    druid_conn.resume_loading()
    resumed = DruidHandoffSensor(task_id="h", druid_task_id=again, datasource="wiki", timeout=10, **FAST)
    event = run_trigger(deferred.value.trigger)
    assert resumed.execute_complete(deferred_ctx, event, **deferred.value.kwargs) == again
    assert_extra(extra_of(deferred_ctx), again)


def test_handoff_sensor_never_fails_without_event_and_pass_says_not_queryable(druid_conn, ctx):
    druid_task_id = _succeeded(ctx)
    target = {"task_id": druid_task_id, "datasource": "wiki", "intervals": [DAY], "min_version": "2026"}
    never = {"status": "never", "druid_task_id": druid_task_id, "message": "wiki: never: zero replicas",
             "result": {"state": "never", "never": ["seg1"]}}
    with pytest.raises(AirflowFailException, match="will never load"):
        DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, datasource="wiki").execute_complete(
            ctx, never, target=target)
    assert extra_of(ctx) == {}
    passing = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, datasource="wiki", on_never="pass")
    assert passing.execute_complete(ctx, never, target=target) == druid_task_id
    assert_extra(extra_of(ctx), druid_task_id, handoff="never", queryable=False)


def test_handoff_sensor_superseded_says_not_queryable_and_names_the_served_task(druid_conn, ctx):
    druid_task_id = _succeeded(ctx)
    target = {"task_id": druid_task_id, "datasource": "wiki", "intervals": [DAY], "min_version": "2026"}
    superseded = {"status": "success", "druid_task_id": druid_task_id, "message": "wiki: superseded: later",
                  "result": {"state": "superseded", "superseded_by": "2099-01-01T00:00:00.000Z",
                             "superseded_by_task": "later_task"}}
    ti = ctx["ti"]
    sensor = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, datasource="wiki")
    assert sensor.execute_complete(ctx, superseded, target=target) == druid_task_id
    extra = extra_of(ctx)
    assert extra["handoff"] == "superseded" and extra["queryable"] is False
    assert extra["served_by_task"] == "later_task" and extra["superseded_by"] == "2099-01-01T00:00:00.000Z"
    assert ti.xcom[XCOM_SERVED_BY] == "later_task"


# ---- the real emission path: dag.test() registers the events in the metadata DB --------------------------

def _asset_events(uri: str) -> list[dict]:
    from airflow.models.asset import AssetEvent, AssetModel
    from airflow.utils.session import create_session

    with create_session() as session:
        rows = (session.query(AssetEvent).join(AssetModel, AssetEvent.asset_id == AssetModel.id)
                .filter(AssetModel.uri == uri).order_by(AssetEvent.id).all())
        return [dict(row.extra or {}) for row in rows]


@pytest.mark.usefixtures("airflow_db")
def test_dag_run_emits_the_event_with_its_extra_for_the_green_ingestion_only(druid_conn):
    """One run, two ingestions into one Asset: the first succeeds, the second's Druid task FAILS -> one event."""
    from airflow.sdk import DAG

    from .test_dags import run_dag, stored_xcoms

    uri = "druid://druid_cluster_default/asset_unit"
    druid_conn.plan_next_task(TaskPlan())  # tasks run in order, so the plans are taken in this order
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="bad input row"))
    with DAG("asset_unit", schedule=None, start_date=pendulum.datetime(2026, 7, 1, tz="UTC")) as dag:
        green, red = (DruidIngestOperator(task_id=name, spec=spec(), datasource="asset_unit", intervals=[DAY],
                                          idempotency_key=name, retries=0, **FAST) for name in ("green", "red"))
        green >> red
    before = len(_asset_events(uri))
    dr = run_dag(dag)
    assert {ti.task_id: ti.state for ti in dr.get_task_instances()} == {"green": "success", "red": "failed"}
    events = _asset_events(uri)[before:]
    assert len(events) == 1, events
    assert events[0]["interval"] == DAY and events[0]["queryable"] is True and events[0]["handoff"] == "loaded"
    assert events[0]["druid_task_id"].startswith("ingest_asset_unit_")
    xcom_ids = {row[0]: row[2] for row in stored_xcoms(dr) if row[1] == "druid_task_id"}
    assert events[0]["druid_task_id"] == xcom_ids["green"] != xcom_ids["red"]


# ---- the example pair in dags/ ------------------------------------------------------------------------------

def test_example_consumer_is_scheduled_on_the_producers_asset_and_counts_each_announced_interval(druid_conn):
    import json
    from types import SimpleNamespace

    from airflow.dag_processing.dagbag import DagBag
    from druid_ingest.testing import Fault

    from .conftest import REPO

    bag = DagBag(dag_folder=str(REPO / "dags"))
    assert bag.import_errors == {}
    producer, consumer = bag.dags["example_druid_asset_producer"], bag.dags["example_druid_asset_consumer"]
    uri = "druid://druid_cluster_default/asset_events_web"
    assert [o.uri for o in producer.get_task("ingest").outlets] == [uri]
    assert [a.uri for a in consumer.timetable.asset_condition.objects] == [uri]
    druid_conn.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200,
                               body=json.dumps([{"rollup_rows": 1712, "input_rows": 2000}]),
                               content_type="application/json", times=None))
    day = "2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"
    events = [SimpleNamespace(extra={"queryable": True, "interval": day, "datasource": "asset_events_web",
                                     "conn_id": "druid_cluster_default", "druid_task_id": "t1"},
                              timestamp=pendulum.datetime(2026, 11, 2, tz="UTC")),
              SimpleNamespace(extra={"queryable": False, "interval": day, "datasource": "asset_events_web"},
                              timestamp=pendulum.datetime(2026, 11, 2, tz="UTC"))]
    task = consumer.get_task("count_loaded_interval")
    [result] = task.python_callable(triggering_asset_events={Asset(uri): events})
    assert result["rollup_rows"] == 1712 and result["druid_task_id"] == "t1" and result["interval"] == day
    [sql] = [r for r in druid_conn.requests if r.path == "/druid/v2/sql"]
    assert sql.json["parameters"] == [{"type": "TIMESTAMP", "value": "2026-11-01 00:00:00"},
                                      {"type": "TIMESTAMP", "value": "2026-11-02 00:00:00"}]
    assert '"asset_events_web"' in sql.json["query"]
