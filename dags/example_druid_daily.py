"""Daily Druid ingestion of ``events_web`` in one task, then a row count through Druid SQL.

``DruidIngestOperator`` submits the day (idempotently: the Druid task id is derived from the rendered
spec, so a retry or re-run adopts the running/succeeded task), waits in the triggerer, and succeeds only
once the new segments are served. Its default outlet ``Asset("druid://druid_cluster_default/events_web")``
is therefore emitted only when the day is queryable.

Set up once::

    airflow connections add druid_cluster_default --conn-type druid_cluster \\
        --conn-host http://localhost:8888 --conn-login admin --conn-password '...'
    airflow pools set druid_ingest 4 "Druid task slots" --include-deferred
    airflow variables set druid_events_root /data/events     # <root>/<YYYY-MM-DD>/*.json

The pool counts Druid task slots: each run takes ``pool_slots`` = the spec's peak slots (supervisor + up
to ``maxNumConcurrentSubTasks`` workers = 3 here), and ``--include-deferred`` makes deferred (waiting)
tasks hold them; without it a pool caps nothing for deferrable tasks. Tasks in a missing pool never run.

Load history (runs are queued; the scheduler runs them, 2 at a time)::

    airflow backfill create --dag-id example_druid_daily \\
        --from-date 2026-11-01 --to-date 2026-11-05 --max-active-runs 2 --reprocess-behavior failed

Each run ingests its data interval ``[data_interval_start, data_interval_end)``: the run with logical date
2026-11-01 loads 2026-11-01T00:00Z/2026-11-02T00:00Z. Clearing a finished run re-adopts the SUCCESS Druid
task (no re-ingestion). To re-ingest days whose files changed while the spec did not, pass a new
``idempotency_key`` (a DAG param, part of the Druid task id)::

    airflow backfill create --dag-id example_druid_daily --from-date 2026-11-02 --to-date 2026-11-02 \
        --reprocess-behavior completed --dag-run-conf '{"idempotency_key": "fix-2026-11-02"}'

Not ``airflow dags trigger --logical-date 2026-11-02``: in Airflow 3.3 that manual run's data interval is the last
complete day before *now*, whatever the logical date (docs/deployment.md §3), so it would ingest the wrong day.

When another run replaced the day before ours was served (the gate says ``superseded``), the row count reads the
later task's data, so it is labelled with that task (XCom ``druid_served_by_task``), not with ours.
"""

from __future__ import annotations

from pathlib import Path

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable, XComArg, task
from druid_ingest.planning import load_template

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import XCOM_SERVED_BY
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

# A dict spec lets the operator size pool_slots from it; a "specs/events_web.json" string also works
# (rendered as a Jinja template with the run's context) but then pool_slots defaults to 1.
SPEC = load_template(Path(__file__).parent / "specs" / "events_web.json")
DATASOURCE = "events_web"

with DAG(
    dag_id="example_druid_daily",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=2,
    params={"idempotency_key": ""},
    tags=["druid", "example"],
    doc_md=__doc__,
):
    ingest = DruidIngestOperator(
        task_id="ingest_events_web",
        spec=SPEC,
        datasource=DATASOURCE,
        input_locations=["{{ var.value.get('druid_events_root', '/tmp/events') }}/{{ data_interval_start | ds }}"],
        idempotency_key="{{ params.idempotency_key }}",
        pool="druid_ingest",
        retries=2,
        retry_delay=pendulum.duration(minutes=2),
    )

    @task
    def count_rows(druid_task_id: str, served_by_task: str | None, data_interval_start=None,
                   data_interval_end=None) -> dict:
        """Row counts of the day, read back through Druid SQL on the Broker, labelled with whose data they are.

        After a ``superseded`` gate (another run replaced the day) the Broker serves the later task's version:
        the counts are that task's, so they carry its id (``served_by_task``), never ours alone.
        """
        start = data_interval_start.in_tz("UTC").strftime("%Y-%m-%d %H:%M:%S")
        end = data_interval_end.in_tz("UTC").strftime("%Y-%m-%d %H:%M:%S")
        rows = DruidHook().sql(
            f'SELECT COUNT(*) AS rollup_rows, SUM("rows") AS input_rows FROM "{DATASOURCE}" '
            "WHERE __time >= ? AND __time < ?",
            parameters=[{"type": "TIMESTAMP", "value": start}, {"type": "TIMESTAMP", "value": end}],
        )
        counts = rows[0] if rows else {"rollup_rows": 0, "input_rows": 0}
        if served_by_task == druid_task_id:
            whose = f"Druid task {druid_task_id}"
        else:  # superseded: a later task's version is what the Broker reads
            whose = f"served version of Druid task {served_by_task or '(unknown: see the ingest log)'}, " \
                    f"not {druid_task_id}"
        print(f"{DATASOURCE} {start}..{end}: {counts} ({whose})")
        return {**counts, "served_by_task": served_by_task}

    count_rows(ingest.output, XComArg(ingest, key=XCOM_SERVED_BY))
