"""Example Dagster definitions: the ``events_web`` datasource, one UTC day per partition.

    export DRUID_URL=http://127.0.0.1:8888 DRUID_USER=admin DRUID_PASSWORD=... DRUID_EVENTS_ROOT=$PWD/var/events
    dagster asset materialize -f examples/dagster/definitions.py --select events_web --partition 2026-11-01

Materializing a partition submits (or adopts) the day's Druid task; the blocking check ``segments_queryable``
goes green when the day's new segments are queryable. ``DRUID_EVENTS_DATASOURCE`` renames the datasource (and
the asset), so several copies can share one cluster. Kept out of ``dags/``: Airflow's DAG processor parses every
file there that mentions its name.
"""

import os
from pathlib import Path

import dagster as dg
from dagster_druid_ingest import DruidResource, druid_daily_asset, druid_daily_job

SPEC = Path(__file__).resolve().parents[2] / "dags" / "specs" / "events_web.json"
DATASOURCE = os.environ.get("DRUID_EVENTS_DATASOURCE", "events_web")
DAY_FOLDER = os.environ.get("DRUID_EVENTS_ROOT", "/data/events") + "/{partition_key}"

events = druid_daily_asset(
    SPEC,
    start_date="2026-11-01",
    datasource=DATASOURCE,
    input_locations=[DAY_FOLDER],
    pool="druid_ingest",  # `dagster instance concurrency set druid_ingest N`, N from `druid-ingest pool --for dagster`
    retry_policy=dg.RetryPolicy(max_retries=2, delay=30),  # a retry adopts, or submits _r<n> after FAILED
)
events_daily = dg.define_asset_job(f"{DATASOURCE}_daily", selection=[events.asset])  # the check runs with it

# The op flavour of the same ingestion (submit op -> wait op). Same spec and day, so the same Druid task id: a run
# of either adopts what the other submitted.
events_ops = druid_daily_job(f"{DATASOURCE}_ops", SPEC, start_date="2026-11-01", datasource=DATASOURCE,
                             input_locations=[DAY_FOLDER])

defs = dg.Definitions(
    assets=[events.asset],
    asset_checks=[events.check],
    jobs=[events_daily, events_ops],
    schedules=[dg.build_schedule_from_partitioned_job(events_daily)],
    resources={
        "druid": DruidResource(
            url=dg.EnvVar("DRUID_URL"),
            username=dg.EnvVar("DRUID_USER"),
            password=dg.EnvVar("DRUID_PASSWORD"),  # only the variable's name is stored in Dagster
        ),
    },
)
