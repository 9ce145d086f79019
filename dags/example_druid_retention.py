"""Retention for ``events_web``: each day, drop the day that has aged past ``keep_days``, then delete it for good.

``DruidDropOperator`` marks that day's segments unused (one request to the Overlord) and waits in the triggerer
until nothing in the day is served: green means a query of the day reads no row. ``DruidKillOperator`` then runs
Druid's kill task for the day, which deletes the unused segments from the metadata store and deep storage (it
never takes a used one). Both are safe to retry or clear: the drop changes nothing the second time, and the kill
has a deterministic task id a retry adopts. A kill that has to wait behind another task's lock on the day (a late
backfill) says which task holds it in its log.

The pool caps Druid task slots as for ingestion: the kill takes one slot; the drop runs no Druid task.

Keep a different number of days for one run (e.g. catching up after raising the retention)::

    airflow backfill create --dag-id example_druid_retention --from-date 2026-11-01 --to-date 2026-11-07 \\
        --dag-run-conf '{"keep_days": 30}'
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable

from airflow_provider_druid_ingest.operators.drop import DruidDropOperator
from airflow_provider_druid_ingest.operators.kill import DruidKillOperator

DATASOURCE = "events_web"
#: the run's data interval moved back by keep_days: the day that has just aged out
AGED_DAY = ("{{ macros.ds_add(data_interval_start | ds, -params.keep_days) }}/"
            "{{ macros.ds_add(data_interval_end | ds, -params.keep_days) }}")

with DAG(
    dag_id="example_druid_retention",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    params={"keep_days": 90},
    tags=["druid", "example"],
    doc_md=__doc__,
):
    drop = DruidDropOperator(task_id="drop_aged_day", datasource=DATASOURCE, intervals=[AGED_DAY], retries=2)
    kill = DruidKillOperator(task_id="kill_aged_day", datasource=DATASOURCE, intervals=[AGED_DAY],
                             pool="druid_ingest", retries=2)
    drop >> kill
