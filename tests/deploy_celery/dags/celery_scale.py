"""Test-only DAGs of the Celery suite (tests/deploy_celery), parsed as the "extra-dags" bundle of its deployment.

``celery_druid_daily``: example_druid_daily's ingestion into a datasource of its own (``events_web_celery``), so the
Celery backfill never touches what the LocalExecutor suite reads. ``celery_failover_waits``: one deferrable
``DruidTaskSensor`` per Druid task id in the run's conf, mapped, for the triggerer failover test (with
``shutdown_on_kill=True``, the sensor's default being False, so that a wrongly killed wait would shut its task down).
"""

from __future__ import annotations

from pathlib import Path

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable, task
from druid_ingest.planning import load_template

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

SPEC = load_template(Path(__file__).resolve().parents[3] / "dags" / "specs" / "events_web.json")
DATASOURCE = "events_web_celery"

with DAG(
    dag_id="celery_druid_daily",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=5,
    params={"idempotency_key": ""},
    tags=["druid", "test", "celery"],
):
    DruidIngestOperator(
        task_id="ingest_events_web",
        spec=SPEC,
        datasource=DATASOURCE,
        input_locations=["{{ var.value.get('druid_events_root', '/tmp/events') }}/{{ data_interval_start | ds }}"],
        idempotency_key="{{ params.idempotency_key }}",
        pool="druid_ingest",
        retries=2,
        retry_delay=pendulum.duration(seconds=30),
    )

with DAG(
    dag_id="celery_failover_waits",
    schedule=None,
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    max_active_tasks=64,
    params={"task_ids": [], "conn_id": "celery_fake_druid"},
    tags=["druid", "test", "celery"],
):

    @task
    def task_ids(params=None) -> list[str]:
        return list(params["task_ids"])

    DruidTaskSensor.partial(
        task_id="wait",
        druid_conn_id="celery_fake_druid",
        deferrable=True,
        poll_interval=2.0,
        max_poll_interval=5.0,
        max_active_tis_per_dagrun=64,
        shutdown_on_kill=True,  # as the ingest operator's waits: the stall phase checks a moved wait's on_kill
    ).expand(druid_task_id=task_ids())
