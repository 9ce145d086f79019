"""``DruidIngestOperator.partial(...).expand(...)`` / ``DruidMsqIngestOperator.partial(...)``: mapping the operators
themselves (one ingestion per interval from a list). Their ``pool_slots`` default (the spec's peak slots, MSQ's
``maxNumTasks``) is computed in ``__init__``, which a mapped task's scheduler-side record never runs: ``partial``
must fill it (Airflow's ``partial`` compared the signature's ``None`` with 1 and raised ``TypeError``)."""

from __future__ import annotations

import pendulum
import pytest
from airflow.sdk import DAG

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator

from ..helpers import FAST, posts, spec
from .test_msq import SQL

START = pendulum.datetime(2026, 7, 1, tz="UTC")
DAYS = [["2026-07-14T00:00:00Z/2026-07-15T00:00:00Z"], ["2026-07-15T00:00:00Z/2026-07-16T00:00:00Z"]]


def test_partial_takes_the_pool_slots_the_operator_would():
    wide = spec(max_subtasks=4)
    wide["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/x", "filter": "*.json"}
    with DAG("mapped_slots", schedule=None, start_date=START):
        ingest = DruidIngestOperator.partial(task_id="ingest", spec=wide).expand(intervals=DAYS)
        given = DruidIngestOperator.partial(task_id="given", spec=wide, pool_slots=2).expand(intervals=DAYS)
        msq = DruidMsqIngestOperator.partial(task_id="msq", datasource="msq_op", query_context={"maxNumTasks": 3}
                                             ).expand(sql=[SQL])
    assert DruidIngestOperator(task_id="plain", spec=wide).pool_slots == ingest.pool_slots == 5
    assert given.pool_slots == 2 and msq.pool_slots == 3
    uris = [[a.uri for a in t.outlets] for t in (ingest, msq)]  # the default Asset too (None broke the run)
    assert uris == [["druid://druid_cluster_default/wiki"], ["druid://druid_cluster_default/msq_op"]]


@pytest.mark.usefixtures("airflow_db")
def test_mapped_operator_run_one_druid_task_per_interval_and_rerun_adopts(druid_conn):
    from ..test_dags import run_dag

    with DAG("mapped_operator", schedule=None, start_date=START) as dag:
        DruidIngestOperator.partial(task_id="ingest", spec=spec(), datasource="wiki", **FAST).expand(intervals=DAYS)
    dr = run_dag(dag)
    assert sorted((ti.map_index, ti.state) for ti in dr.get_task_instances()) == [(0, "success"), (1, "success")]
    sent = sorted(p.json["spec"]["dataSchema"]["granularitySpec"]["intervals"] for p in posts(druid_conn))
    assert sent == DAYS and len({p.json["id"] for p in posts(druid_conn)}) == 2
    run_dag(dag)
    assert len(posts(druid_conn)) == 2


def test_mapped_handoff_sensor_keeps_its_default_asset():
    from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor

    with DAG("mapped_sensor", schedule=None, start_date=START):
        gate = DruidHandoffSensor.partial(task_id="gate", datasource="wiki").expand(druid_task_id=["a", "b"])
        unknown = DruidHandoffSensor.partial(task_id="unknown").expand(druid_task_id=["a"])
    assert [a.uri for a in gate.outlets] == ["druid://druid_cluster_default/wiki"] and unknown.outlets == []
