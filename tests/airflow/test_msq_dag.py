"""The example MSQ DAG under ``dag.test()`` (its trigger runs inline) against FakeDruid's /druid/v2/sql/task."""

from __future__ import annotations

import pytest

from .test_dags import example_dag, run_dag, serve_sql, ti_states, trigger_runs  # noqa: F401 (fixture)

pytestmark = pytest.mark.usefixtures("airflow_db")


def test_msq_dag_green_statement_bounded_to_the_run(druid_conn, trigger_runs):  # noqa: F811
    serve_sql(druid_conn, [{"rollup_rows": 1695, "input_rows": 2000}])
    dag = example_dag("example_druid_msq_daily")
    ingest = dag.get_task("ingest_events_msq")
    assert ingest.pool == "druid_ingest" and ingest.pool_slots == 2
    assert [a.uri for a in ingest.outlets] == ["druid://druid_cluster_default/msq_events_web"]
    dr = run_dag(dag)
    assert dr.state == "success", ti_states(dr)
    posts = druid_conn.requests_matching("POST", "/druid/v2/sql/task")
    assert len(posts) == 1
    query = posts[0].json["query"]
    assert ("OVERWRITE WHERE __time >= TIMESTAMP '2026-11-01 00:00:00' AND __time < TIMESTAMP "
            "'2026-11-02 00:00:00'") in query
    assert '"baseDir":"/tmp/events/2026-11-01"' in query  # interval_date and the DAG's variable, by the plan
    assert posts[0].json["context"]["maxNumTasks"] == 2
    assert posts[0].json["context"]["sqlQueryId"].startswith("msq_msq_events_web_20261101-20261102_")
    assert any("/metadata/datasources/msq_events_web/segments" in r.path for r in druid_conn.requests)
    assert trigger_runs == ["DruidIngestionTrigger"]
