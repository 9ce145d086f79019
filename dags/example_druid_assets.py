"""A downstream DAG scheduled on a Druid Asset, and the ingestion that emits it.

``example_druid_asset_producer`` ingests one day into ``asset_events_web`` with ``DruidIngestOperator``, whose
default outlet is ``Asset("druid://druid_cluster_default/asset_events_web")``. The operator succeeds only once the
new segments are served, so Airflow registers the Asset event only then, and the event's extra says what was
loaded: ``druid_task_id``, ``interval`` (``start/end``), ``intervals``, ``handoff``, ``queryable``.

``example_druid_asset_consumer`` is scheduled on that Asset: each event queues one run, which reads the interval
from the event's extra and counts its rows through Druid SQL. Several events that arrive before the run starts
are handed to one run together; it reads each.

The producer has no schedule of its own here (trigger it with a data interval: the UI's "Trigger" form or
``POST /api/v2/dags/example_druid_asset_producer/dagRuns`` with ``data_interval_start``/``data_interval_end``);
``example_druid_daily`` shows the same operator on a daily timetable, and its Asset
``druid://druid_cluster_default/events_web`` can drive a consumer the same way.
"""

from __future__ import annotations

import time
from pathlib import Path

import pendulum
from airflow.sdk import DAG, task
from druid_ingest.planning import load_template

from airflow_provider_druid_ingest.common.assets import druid_asset
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

SPEC = load_template(Path(__file__).parent / "specs" / "events_web.json")
DATASOURCE = "asset_events_web"
ASSET = druid_asset(DATASOURCE)  # druid://druid_cluster_default/asset_events_web

with DAG(
    dag_id="example_druid_asset_producer",
    schedule=None,
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    params={"idempotency_key": ""},
    tags=["druid", "example", "asset"],
    doc_md=__doc__,
):
    DruidIngestOperator(
        task_id="ingest",
        spec=SPEC,
        datasource=DATASOURCE,  # outlets default to [ASSET]
        input_locations=["{{ var.value.get('druid_events_root', '/tmp/events') }}/{{ data_interval_start | ds }}"],
        idempotency_key="{{ params.idempotency_key }}",
        pool="druid_ingest",
        retries=2,
        retry_delay=pendulum.duration(minutes=2),
    )


def _sql_time(iso: str) -> str:
    """``2026-11-01T00:00:00Z`` -> ``2026-11-01 00:00:00``, the form of a Druid SQL TIMESTAMP parameter."""
    return pendulum.parse(iso).in_tz("UTC").strftime("%Y-%m-%d %H:%M:%S")


with DAG(
    dag_id="example_druid_asset_consumer",
    schedule=[ASSET],
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    tags=["druid", "example", "asset"],
    doc_md=__doc__,
):

    @task
    def count_loaded_interval(triggering_asset_events=None) -> list[dict]:
        """Row counts of each interval an event announced, read through Druid SQL (a consumer's first look)."""
        results = []
        for event in (triggering_asset_events or {}).get(ASSET, []):
            extra = dict(event.extra or {})
            if not extra.get("queryable") or not extra.get("interval"):
                # on_never='pass' / allow_empty; superseded: the served data is another task's (served_by_task)
                print(f"skipping event {extra}: not a queryable load")
                continue
            start, end = extra["interval"].split("/", 1)
            rows = DruidHook(druid_conn_id=extra.get("conn_id") or "druid_cluster_default").sql(
                f'SELECT COUNT(*) AS rollup_rows, SUM("rows") AS input_rows FROM "{extra["datasource"]}" '
                "WHERE __time >= ? AND __time < ?",
                parameters=[{"type": "TIMESTAMP", "value": _sql_time(start)},
                            {"type": "TIMESTAMP", "value": _sql_time(end)}],
            )
            counts = rows[0] if rows else {"rollup_rows": 0, "input_rows": 0}
            result = {"interval": extra["interval"], "druid_task_id": extra.get("druid_task_id"),
                      "event_timestamp": event.timestamp.isoformat(), "queried_at": time.time(), **counts}
            print(f"{extra['datasource']} {extra['interval']}: {counts} (Druid task {extra.get('druid_task_id')})")
            results.append(result)
        return results

    count_loaded_interval()
