"""P4 baseline DAG: the same DAG with only ``airflow.sdk`` (DAG, BaseOperator, task), no Druid provider."""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, BaseOperator, CronDataIntervalTimetable, task


class Ingest(BaseOperator):
    def execute(self, context):
        return None


with DAG(
    dag_id="p4_bare",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
):
    ingest = Ingest(task_id="ingest", pool="druid_ingest", retries=2)

    @task
    def count_rows() -> int:
        return 0

    ingest >> count_rows()
