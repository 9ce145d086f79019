"""Daily SQL-based (MSQ) ingestion of ``msq_events_web``: the same gates as ``example_druid_daily``, one statement.

``DruidMsqIngestOperator`` renders ``sql/events_web_msq.sql`` for the run's interval (``REPLACE INTO ...
OVERWRITE WHERE`` bounded to exactly that day: anything else fails before any HTTP call), posts it to
``/druid/v2/sql/task`` with a deterministic ``sqlQueryId`` (so the controller task ``query-<id>`` is adopted on a
retry or re-run, and a changed statement gets a new task that replaces the day), waits in the triggerer, and
succeeds only once the controller's segments are served. Needs the ``druid-multi-stage-query`` extension on the
cluster (docs/msq.md).

Set up once (as for example_druid_daily)::

    airflow connections add druid_cluster_default --conn-type druid_cluster --conn-host http://localhost:8888
    airflow pools set druid_ingest 4 "Druid task slots" --include-deferred
    airflow variables set druid_events_root /data/events     # <root>/<YYYY-MM-DD>/*.json, on the Druid workers

``pool_slots`` is the statement's ``maxNumTasks`` (controller + workers; 2 here).
"""

from __future__ import annotations

from pathlib import Path

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable, task

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator

SQL = (Path(__file__).parent / "sql" / "events_web_msq.sql").read_text()
DATASOURCE = "msq_events_web"

with DAG(
    dag_id="example_druid_msq_daily",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=2,
    params={"idempotency_key": ""},
    tags=["druid", "example", "msq"],
    doc_md=__doc__,
):
    ingest = DruidMsqIngestOperator(
        task_id="ingest_events_msq",
        sql=SQL,
        datasource=DATASOURCE,
        variables={"events_root": "{{ var.value.get('druid_events_root', '/tmp/events') }}"},
        query_context={"maxNumTasks": 2, "finalizeAggregations": False},
        idempotency_key="{{ params.idempotency_key }}",
        pool="druid_ingest",
        retries=2,
        retry_delay=pendulum.duration(minutes=2),
    )

    @task
    def count_rows(druid_task_id: str, data_interval_start=None, data_interval_end=None) -> dict:
        """Row counts of the day, read back through Druid SQL on the Broker."""
        start = data_interval_start.in_tz("UTC").strftime("%Y-%m-%d %H:%M:%S")
        end = data_interval_end.in_tz("UTC").strftime("%Y-%m-%d %H:%M:%S")
        rows = DruidHook().sql(
            f'SELECT COUNT(*) AS rollup_rows, SUM("rows") AS input_rows FROM "{DATASOURCE}" '
            "WHERE __time >= ? AND __time < ?",
            parameters=[{"type": "TIMESTAMP", "value": start}, {"type": "TIMESTAMP", "value": end}],
        )
        counts = rows[0] if rows else {"rollup_rows": 0, "input_rows": 0}
        print(f"{DATASOURCE} {start}..{end}: {counts} (Druid task {druid_task_id})")
        return counts

    count_rows(ingest.output)
