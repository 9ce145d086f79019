"""The OpenLineage provider's own listener, enabled with its file transport, under ``dag.test()``: the COMPLETE
event of a deferred one-shot ingestion carries our datasets and the Druid task id. A subprocess, because the
provider reads its configuration once per process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("airflow_db")

DAG_RUN = textwrap.dedent(
    """
    import json, os, tempfile
    import pendulum
    from airflow_provider_druid_ingest.testing import FakeDruid, index_parallel_spec

    with FakeDruid(task_duration=0.3, handoff_delay=0.2) as fake:
        os.environ["AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT"] = json.dumps({"conn_type": "druid_cluster", "host": fake.url})
        from airflow.dag_processing.bundles.manager import DagBundlesManager
        from airflow.dag_processing.dagbag import DagBag, sync_bag_to_db
        from airflow.sdk import DAG, CronDataIntervalTimetable
        from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

        spec = index_parallel_spec("ol_events")
        spec["spec"]["ioConfig"]["inputSource"] = {"type": "google", "prefixes": ["gs://placeholder/"]}
        with DAG("ol_lineage", schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
                 start_date=pendulum.datetime(2026, 11, 1, tz="UTC"), catchup=False) as dag:
            DruidIngestOperator(task_id="ingest", spec=spec, input_locations=["gs://events/{{ ds }}/"],
                                poll_interval=0.05, max_poll_interval=0.2)
        DagBundlesManager().sync_bundles_to_db()
        bag = DagBag(dag_folder=tempfile.mkdtemp())
        bag.bag_dag(dag)
        sync_bag_to_db(bag, "dags-folder", None)
        run = dag.test(logical_date=pendulum.datetime(2026, 11, 2, tz="UTC"))
        print("DAGRUN", run.state, "DRUID", fake.url)
    """
)


def test_the_openlineage_listener_emits_our_facets_on_complete(tmp_path: Path):
    events_file = tmp_path / "events.jsonl"
    env = {
        **os.environ,
        "AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps({"type": "file", "log_file_path": str(events_file),
                                                      "append": True}),
        "AIRFLOW__OPENLINEAGE__NAMESPACE": "druid_ingest_tests",
    }
    out = subprocess.run([sys.executable, "-c", DAG_RUN], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "DAGRUN success" in out.stdout, out.stdout[-3000:]
    fake_url = out.stdout.split("DRUID ")[-1].split()[0]
    events = [json.loads(line) for line in events_file.read_text().splitlines()]
    complete = [e for e in events if e["eventType"] == "COMPLETE" and e["job"]["name"] == "ol_lineage.ingest"]
    assert len(complete) == 1, [(e["eventType"], e["job"]["name"]) for e in events]
    event = complete[0]
    host_port = fake_url.split("://")[1]
    assert [(d["namespace"], d["name"]) for d in event["outputs"]] == [(f"druid://{host_port}", "ol_events")]
    assert [(d["namespace"], d["name"]) for d in event["inputs"]] == [("gs://events", "2026-11-02")]
    query = event["run"]["facets"]["externalQuery"]
    assert query["externalQueryId"].startswith("ingest_ol_events_20261101-20261102_"), query
    assert query["source"] == f"druid://{host_port}"
    assert event["job"]["namespace"] == "druid_ingest_tests"
