"""Test-only DAGs of the deployment suite's crash points (``tests/deploy/test_crash_*.py``), parsed as the
``extra-dags`` bundle when the harness starts with ``AIRFLOW_DEV_EXTRA_DAGS=tests/deploy/dags``.

They ingest the generator's events into the ``crash_events`` datasource through Druid's ``http`` input source and
the ``crash_druid`` connection; both addresses belong to the test process (``tests/deploy/crash_server.py``): it
serves each day's input (and can hold it, so a Druid task stays RUNNING as long as a test needs, or serve a
malformed file so Druid FAILs it) and relays every Druid call (so a test can hold the submit response and kill
the worker inside the window "Druid accepted the task, the XCom is not pushed yet"). The connection carries a
known password (the secrets check). No scheduled runs: ``end_date`` lies before every day the scheduler would
pick, so runs come only from ``airflow backfill create`` (days 2026-11-23..2026-11-29).
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, CronDataIntervalTimetable

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

DATASOURCE = "crash_events"
CONN_ID = "crash_druid"
SPEC = {
    "type": "index_parallel",
    "spec": {
        "dataSchema": {
            "dataSource": DATASOURCE,
            "timestampSpec": {"column": "event_ts", "format": "iso"},
            "dimensionsSpec": {"dimensions": ["country", "device", {"name": "page_id", "type": "long"}]},
            "metricsSpec": [
                {"type": "count", "name": "rows"},
                {"type": "longSum", "name": "bytes", "fieldName": "resp_bytes"},
            ],
            "granularitySpec": {"type": "uniform", "segmentGranularity": "DAY", "queryGranularity": "MINUTE",
                                "rollup": True},
        },
        "ioConfig": {
            "type": "index_parallel",
            "inputSource": {"type": "http", "uris": ["http://replaced.per.run/"]},
            "inputFormat": {"type": "json"},
            "appendToExisting": False,
            "dropExisting": True,
        },
        "tuningConfig": {
            "type": "index_parallel",
            # one Druid task slot (sequential mode), perfect rollup (the generator's rollup_rows), and a malformed
            # row fails the task instead of being skipped
            "maxNumConcurrentSubTasks": 1,
            "forceGuaranteedRollup": True,
            "partitionsSpec": {"type": "hashed", "numShards": 1},
            "maxParseExceptions": 0,
        },
    },
}
COMMON = {
    "schedule": CronDataIntervalTimetable("@daily", timezone="UTC"),
    "start_date": pendulum.datetime(2026, 11, 1, tz="UTC"),
    "end_date": pendulum.datetime(2026, 11, 29, tz="UTC"),
    "catchup": False,
    "max_active_runs": 1,
    "params": {"idempotency_key": "", "input_base": "http://input.not.set"},
    "tags": ["druid", "deploy-test"],
}


def ingest(**kwargs) -> DruidIngestOperator:
    return DruidIngestOperator(
        task_id="ingest",
        spec=SPEC,
        druid_conn_id=CONN_ID,
        input_locations=["{{ params.input_base }}/{{ data_interval_start | ds }}.json"],
        idempotency_key="{{ params.idempotency_key }}",
        poll_interval=1.0,
        max_poll_interval=3.0,
        **kwargs,
    )


# Two retries: the one a point needs, and one for Airflow 3.3's stale defer-exit race, which fails a try whose
# trigger fired before the scheduler saw the deferral's workload end (docs/deployment.md, troubleshooting); the
# tests print when it struck, and the next try adopts the Druid task (no second ingestion)
with DAG(dag_id="crash_ingest", doc_md="Kill, clear, fail and mark points: two retries, 1 s apart.", **COMMON):
    ingest(retries=2, retry_delay=pendulum.duration(seconds=1))

with DAG(dag_id="crash_timeout", doc_md="execution_timeout fires while Druid runs (20 s; two retries).", **COMMON):
    ingest(retries=2, retry_delay=pendulum.duration(seconds=1), execution_timeout=pendulum.duration(seconds=20))
