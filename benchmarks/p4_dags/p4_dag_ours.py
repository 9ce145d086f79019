"""P4 DAG using this package's ``DruidIngestOperator`` (example_druid_daily's DAG, parse-time parts only)."""

from __future__ import annotations

from pathlib import Path

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable, task
from druid_ingest.planning import load_template

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

SPEC = load_template(Path(__file__).resolve().parents[2] / "dags" / "specs" / "events_web.json")

with DAG(
    dag_id="p4_ours",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
):
    ingest = DruidIngestOperator(
        task_id="ingest",
        spec=SPEC,
        datasource="events_web",
        input_locations=["/data/events/{{ data_interval_start | ds }}"],
        pool="druid_ingest",
        retries=2,
    )

    @task
    def count_rows() -> int:
        return 0

    ingest >> count_rows()
