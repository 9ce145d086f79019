"""Daily ingestion of ``taskflow_events_web`` whose spec is computed at run time: ``@task.druid_ingest``.

The decorated function returns the Druid ingestion spec; the task then runs exactly as ``DruidIngestOperator``
(pre-flight, idempotent submit, deferred wait, handoff gate, Asset event). Here the spec depends on what an
upstream task found at run time (how many files landed for the day), which a static operator spec cannot say.

Use ``DruidIngestOperator`` when the spec is known when the DAG file is parsed: it sizes ``pool_slots`` from
the spec and its problems show before the run. The decorator cannot (docs/airflow-3.3.md "TaskFlow
decorators"), so ``pool_slots`` is given here: the largest the function can ask for (supervisor + 2 workers).

Set up as for example_druid_daily (connection, the ``druid_ingest`` pool, the ``druid_events_root`` variable:
a folder the Airflow worker and the Druid workers both see, ``<root>/<YYYY-MM-DD>/*.json``).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable, Variable, task
from druid_ingest.planning import load_template

SPEC = load_template(Path(__file__).parent / "specs" / "events_web.json")
DATASOURCE = "taskflow_events_web"
MAX_SUBTASKS = 2

with DAG(
    dag_id="example_druid_taskflow",
    schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=2,
    tags=["druid", "example", "taskflow"],
    doc_md=__doc__,
):

    @task
    def landed(data_interval_start=None) -> dict:
        """The day's input folder and how many files have landed in it (read at run time)."""
        folder = Path(Variable.get("druid_events_root", "/tmp/events")) / data_interval_start.strftime("%Y-%m-%d")
        files = sorted(folder.glob("*.json")) if folder.is_dir() else []
        return {"folder": str(folder), "files": len(files)}

    @task.druid_ingest(datasource=DATASOURCE, pool="druid_ingest", pool_slots=MAX_SUBTASKS + 1, retries=2)
    def ingest_events(found: dict) -> dict:
        """One worker per landed file, at most MAX_SUBTASKS: the same input gives the same spec, so a retry
        adopts the running Druid task instead of submitting another."""
        spec = copy.deepcopy(SPEC)
        spec["spec"]["ioConfig"]["inputSource"]["baseDir"] = found["folder"]
        spec["spec"]["tuningConfig"]["maxNumConcurrentSubTasks"] = max(1, min(MAX_SUBTASKS, found["files"]))
        return spec

    ingest_events(landed())
