"""Monthly compaction of ``events_web``: once a month has been loaded (by the daily DAG or a backfill of it),
re-roll its HOUR segments into MONTH segments, and finish only when the compacted data is what the Broker serves.

``DruidCompactOperator`` submits Druid's ``compact`` task for the run's data interval (the month) under a
deterministic id: a retry or a cleared run adopts the running or finished compaction instead of starting a
second. SUCCESS is not enough: the task waits in the triggerer until the MONTH version is served.

After a backfill, compact the months it touched once it has finished (runs are queued, 1 at a time)::

    airflow backfill create --dag-id example_druid_daily --from-date 2026-11-01 --to-date 2026-11-30
    airflow backfill create --dag-id example_druid_compact_monthly --from-date 2026-11-01 --to-date 2026-11-30

A day re-ingested *while* its month compacts wins: a batch replace (priority 50) revokes the compaction's lock
(priority 25) and the compaction fails; a retry compacts the month again with the new day. A day replaced *after*
the compaction published is newer than the MONTH version: the gate then says ``superseded`` and names the task
(docs/druid-contract.md §timeline).

Druid's auto-compaction of the datasource would compact the same month at the same priority (25), so one of the two
fails: the compaction runs between ``DruidPauseAutoCompactionOperator`` and ``DruidResumeAutoCompactionOperator``
(docs/lifecycle.md "A backfill and compaction"). The pause saves and deletes the datasource's Coordinator compaction
config (or suspends its compaction supervisor) and passes what it saved by XCom; the resume is the run's teardown:
it runs whether the compaction succeeded or not, and the run's state is still the compaction's. With no
auto-compaction configured both do nothing. Wrap a backfill DAG's ingestion the same way.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable

from airflow_provider_druid_ingest.operators.auto_compaction import (
    DruidPauseAutoCompactionOperator,
    DruidResumeAutoCompactionOperator,
)
from airflow_provider_druid_ingest.operators.compact import DruidCompactOperator

with DAG(
    dag_id="example_druid_compact_monthly",
    schedule=CronDataIntervalTimetable("0 0 1 * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["druid", "example"],
    doc_md=__doc__,
):
    pause = DruidPauseAutoCompactionOperator(task_id="pause_auto_compaction", datasource="events_web", retries=2)
    compact = DruidCompactOperator(
        task_id="compact_month",
        datasource="events_web",
        segment_granularity="MONTH",
        pool="druid_ingest",
        retries=2,
        retry_delay=pendulum.duration(minutes=10),
    )
    resume = DruidResumeAutoCompactionOperator(task_id="resume_auto_compaction", datasource="events_web",
                                               pause_task_id="pause_auto_compaction", retries=2)
    pause >> compact >> resume.as_teardown(setups=pause)
