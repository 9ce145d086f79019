"""The same daily ``events_web`` ingestion as ``example_druid_daily``, split into one task per step.

submit -> DruidTaskSensor (Druid task finished) -> DruidHandoffSensor (data queryable) -> row count.

Trade-off versus the one-shot ``DruidIngestOperator``: each step is visible and re-runnable on its own, but
retrying a *sensor* cannot resubmit a FAILED Druid task (the sensor fails without retrying; clear the
``submit`` task instead), and a pool created with ``--include-deferred`` does not count the Druid job in the
gap between ``submit`` finishing and the sensor deferring. Set up as in ``example_druid_daily``.
"""

from __future__ import annotations

from pathlib import Path

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable, XComArg, task
from druid_ingest.planning import load_template

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import XCOM_SERVED_BY
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

SPEC = load_template(Path(__file__).parent / "specs" / "events_web.json")
DATASOURCE = "events_web"
DRUID_TASK_ID = "{{ ti.xcom_pull(task_ids='submit') }}"

with DAG(
    dag_id="example_druid_split",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=2,
    tags=["druid", "example"],
    doc_md=__doc__,
):
    submit = DruidSubmitOperator(
        task_id="submit",
        spec=SPEC,
        datasource=DATASOURCE,
        input_locations=["{{ var.value.get('druid_events_root', '/tmp/events') }}/{{ data_interval_start | ds }}"],
        retries=2,
    )
    wait_task = DruidTaskSensor(task_id="wait_for_task", druid_task_id=DRUID_TASK_ID, timeout=6 * 3600)
    wait_loaded = DruidHandoffSensor(
        task_id="wait_for_handoff",
        druid_task_id=DRUID_TASK_ID,
        datasource=DATASOURCE,
        # the instant the task sensor saw the Druid task holding its lock: tells its version from a later one's
        version_ceiling="{{ ti.xcom_pull(task_ids='wait_for_task', key='druid_version_ceiling') }}",
        timeout=3600,
    )

    @task
    def count_rows(druid_task_id: str, served_by_task: str | None, data_interval_start=None,
                   data_interval_end=None) -> int:
        """The day's rows, labelled with the task whose version is served (a later one after ``superseded``)."""
        start = data_interval_start.in_tz("UTC").strftime("%Y-%m-%d %H:%M:%S")
        end = data_interval_end.in_tz("UTC").strftime("%Y-%m-%d %H:%M:%S")
        rows = DruidHook().sql(
            f'SELECT COUNT(*) AS n FROM "{DATASOURCE}" WHERE __time >= ? AND __time < ?',
            parameters=[{"type": "TIMESTAMP", "value": start}, {"type": "TIMESTAMP", "value": end}],
        )
        count = int(rows[0]["n"]) if rows else 0
        whose = (f"Druid task {druid_task_id}" if served_by_task == druid_task_id else
                 f"served version of Druid task {served_by_task or '(unknown: see the gate log)'}, not {druid_task_id}")
        print(f"{DATASOURCE} {start}..{end}: {count} rows ({whose})")
        return count

    submit >> wait_task >> wait_loaded >> count_rows(wait_loaded.output, XComArg(wait_loaded, key=XCOM_SERVED_BY))
