"""P4 DAG using the official apache-airflow-providers-apache-druid ``DruidOperator`` (its documented usage)."""

from __future__ import annotations

import pendulum
from airflow.providers.apache.druid.operators.druid import DruidOperator
from airflow.sdk import DAG, CronDataIntervalTimetable, task

with DAG(
    dag_id="p4_official",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
):
    ingest = DruidOperator(
        task_id="ingest",
        json_index_file="events_web.json",
        druid_ingest_conn_id="druid_ingest_default",
        pool="druid_ingest",
        retries=2,
    )

    @task
    def count_rows() -> int:
        return 0

    ingest >> count_rows()
