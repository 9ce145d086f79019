"""React to what Druid serves, whoever wrote it: a check runs once the Broker serves new data of ``events_watched``.

The DAG is scheduled on an Asset with a ``DruidServedTrigger`` watcher (``druid_served_asset``). The triggerer
looks at what the Broker serves of the datasource every 10 seconds (one small read when nothing changed) and
emits an Asset event when a new version is served or appended to: an ingestion POSTed by another team's job, a
compaction by Druid's auto-compaction, a streaming handoff, a run of this package's operators. One event carries
every change one look saw (a 30-day compaction is one change). Each run of the DAG counts, with Druid SQL, the
rows now served in each changed interval and fails if Druid serves a new version there that SQL reads as empty.

The watch keeps its cursor in the Asset's state store once Airflow has stored the event, so a triggerer restart
loses no change and does not repeat one it kept (docs/watching.md). ``events_watched`` is this example's own
datasource: nothing else in this repository writes it. Write a day into it from outside Airflow, e.g.::

    sed 's/"dataSource": "events_web"/"dataSource": "events_watched"/' dags/specs/events_web.json | ...  # POST it
    curl -X POST -H 'Content-Type: application/json' -d @spec.json http://localhost:8888/druid/indexer/v1/task
"""

from __future__ import annotations

from typing import Any

import pendulum
from airflow.sdk import DAG, task

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.triggers.served import druid_served_asset

DATASOURCE = "events_watched"
EVENTS_WATCHED_SERVED = druid_served_asset("druid_served_events_watched", datasource=DATASOURCE, poll_interval=10)

#: input rows (the spec's ``count`` metric, "rows") and stored rows in one interval
COUNT_SQL = (f'SELECT COALESCE(SUM("rows"), 0) AS input_rows, COUNT(*) AS stored_rows FROM "{DATASOURCE}" '
             "WHERE __time >= TIME_PARSE(?) AND __time < TIME_PARSE(?)")


@task
def count_served(triggering_asset_events: Any = None) -> list[dict[str, Any]]:
    """Each changed interval's rows as Druid SQL reads them now; a new version read as empty fails the run."""
    counted: list[dict[str, Any]] = []
    with DruidHook().get_client() as client:
        for event in triggering_asset_events[EVENTS_WATCHED_SERVED]:
            payload = event.extra["payload"]
            for change in payload["changes"]:
                start, end = change["interval"].split("/")
                [row] = client.sql(COUNT_SQL, [{"type": "VARCHAR", "value": start},
                                               {"type": "VARCHAR", "value": end}])
                counted.append({"key": payload["key"], "kind": change["kind"], "interval": change["interval"],
                                "version": change["version"], "writer": change["writer"], **row})
                print(f"{change['kind']} {change['interval']} (version {change['version']}, {change['writer']}): "
                      f"{row['input_rows']} input rows, {row['stored_rows']} stored")
                if row["stored_rows"] == 0 and change["writer"] != "tombstone":
                    raise ValueError(f"Druid serves a new version of {change['interval']} ({change['version']}) "
                                     "but SQL reads no row there")
    return counted


with DAG(
    dag_id="example_druid_served",
    schedule=[EVENTS_WATCHED_SERVED],
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    tags=["druid", "example", "watch"],
    doc_md=__doc__,
):
    count_served()
