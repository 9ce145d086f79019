"""P5 benchmark DAGs: one day of ``events_web`` data ingested three ways, each into its own datasource.

``benchmarks/p5_worker_slots.py`` links this file into the deployment's DAGs folder for its run only and removes
it afterwards. ``end_date`` lies in the past so that unpausing never adds a scheduled run beside the backfill;
``idempotency_key`` (a param, set per run) gives every benchmark run new Druid task ids, so Druid really ingests.
"""

from __future__ import annotations

from pathlib import Path

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable
from druid_ingest.planning import load_template

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

# resolve(): the DAGs folder holds a symlink to this file; the spec lives in the repo's dags/specs
SPEC = load_template(Path(__file__).resolve().parents[2] / "dags" / "specs" / "events_web.json")
INPUT = ["{{ var.value.get('druid_events_root', '/tmp/events') }}/{{ data_interval_start | ds }}"]
KEY = "{{ params.idempotency_key }}"
DRUID_TASK_ID = "{{ ti.xcom_pull(task_ids='submit') }}"


def bench_dag(dag_id: str) -> DAG:
    return DAG(
        dag_id=dag_id,
        schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
        start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
        end_date=pendulum.datetime(2026, 11, 20, tz="UTC"),
        catchup=False,
        max_active_runs=2,
        params={"idempotency_key": ""},
        tags=["druid", "benchmark"],
    )


for variant, deferrable in (("oneshot", True), ("blocking", False)):
    with bench_dag(f"bench_p5_{variant}"):
        DruidIngestOperator(
            task_id="ingest",
            spec=SPEC,
            datasource=f"bench_p5_{variant}",
            input_locations=INPUT,
            idempotency_key=KEY,
            deferrable=deferrable,
            pool="druid_ingest",
        )

with bench_dag("bench_p5_split"):
    submit = DruidSubmitOperator(
        task_id="submit",
        spec=SPEC,
        datasource="bench_p5_split",
        input_locations=INPUT,
        idempotency_key=KEY,
    )
    wait_task = DruidTaskSensor(task_id="wait_for_task", druid_task_id=DRUID_TASK_ID, timeout=3600)
    wait_loaded = DruidHandoffSensor(
        task_id="wait_for_handoff",
        druid_task_id=DRUID_TASK_ID,
        datasource="bench_p5_split",
        version_ceiling="{{ ti.xcom_pull(task_ids='wait_for_task', key='druid_version_ceiling') }}",
        timeout=3600,
    )
    submit >> wait_task >> wait_loaded
