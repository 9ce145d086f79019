"""The example DAGs, run by the real ``airflow dags test`` CLI against the real Druid, checked by Druid SQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.wire._config import ClusterConfig

from tests import druid_sql

pytestmark = pytest.mark.timeout(900)
ROOT = Path(__file__).resolve().parents[2]
AIRFLOW = str(Path(sys.executable).with_name("airflow"))
PASSWORD = "never-printed-Pa55"


@pytest.fixture(scope="module")
def airflow_env(tmp_path_factory: pytest.TempPathFactory, druid_url: str, events_dir: Path) -> dict[str, str]:
    home = tmp_path_factory.mktemp("airflow-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env.update(
        AIRFLOW_HOME=str(home),
        AIRFLOW__CORE__DAGS_FOLDER=str(ROOT / "dags"),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__LOGGING__LOGGING_LEVEL="INFO",
        # The dev cluster has no basic auth: the password is sent and ignored, and must never be printed.
        AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT=json.dumps(
            {"conn_type": "druid_cluster", "host": druid_url, "login": "admin", "password": PASSWORD}
        ),
        AIRFLOW_VAR_DRUID_EVENTS_ROOT=str(events_dir),
    )
    subprocess.run([AIRFLOW, "db", "migrate"], env=env, check=True, capture_output=True)
    subprocess.run([AIRFLOW, "pools", "set", "druid_ingest", "4", "Druid slots", "--include-deferred"],
                   env=env, check=True, capture_output=True)
    return env


def dags_test(env: dict[str, str], dag_id: str, logical_date: str) -> str:
    proc = subprocess.run([AIRFLOW, "dags", "test", dag_id, logical_date], env=env, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert PASSWORD not in out
    return out


def day_counts(url: str, day: str) -> dict[str, Any]:
    with DruidClient(ClusterConfig(url=url)) as client:
        return druid_sql.day_counts(client, "events_web", day)


@pytest.mark.parametrize(("dag_id", "logical_date", "day"), [
    ("example_druid_daily", "2026-11-04", "2026-11-03"),   # [11-03, 11-04) under CronDataIntervalTimetable
    ("example_druid_split", "2026-11-05", "2026-11-04"),
])
def test_example_dag_ingests_a_queryable_day(airflow_env, druid_url, expected, dag_id, logical_date, day) -> None:
    out = dags_test(airflow_env, dag_id, logical_date)
    assert "is queryable" in out or "loaded" in out
    # green means queryable: the counts are complete the moment the DAG run ends
    assert day_counts(druid_url, day) == expected[day]
    # a re-run of the same day adopts the succeeded Druid task: no second ingestion
    again = dags_test(airflow_env, dag_id, logical_date)
    assert "Adopted" in again or "adopted" in again
    assert day_counts(druid_url, day) == expected[day]


FAILING_DAG = '''
import os
from pathlib import Path

import pendulum
from airflow.sdk import DAG

from druid_ingest.planning.spec import load_template
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

SPEC = load_template(Path(os.environ["E2E_REPO"]) / "dags" / "specs" / "events_web.json")
SPEC["spec"]["dataSchema"]["timestampSpec"] = {"column": "no_such_column", "format": "iso"}
SPEC["spec"]["tuningConfig"] = {"type": "index_parallel", "maxNumConcurrentSubTasks": 1,
                                "partitionsSpec": {"type": "dynamic"}, "maxParseExceptions": 0,
                                "maxSavedParseExceptions": 5}


def record(context):
    Path(os.environ["E2E_FAILURE_OUT"]).write_text(str(context["exception"]))


with DAG("e2e_druid_failure", schedule=None, start_date=pendulum.datetime(2026, 11, 1, tz="UTC"), catchup=False):
    DruidIngestOperator(
        task_id="ingest", spec=SPEC, datasource="e2e_af_failed",
        intervals=["2026-11-05T00:00:00Z/2026-11-06T00:00:00Z"],
        input_locations=[os.environ["E2E_EVENTS"] + "/2026-11-05"],
        idempotency_key=os.environ["E2E_KEY"], retries=0, on_failure_callback=record,
    )
'''


def test_failed_ingestion_exception_seen_by_on_failure_callback_explains_it(airflow_env, druid_url, events_dir,
                                                                             tmp_path) -> None:
    """What an alert gets is the exception: it must carry Druid's full errorMsg (the status cuts it at 1024
    characters), the row stats and the first unparseable events, not just 'FAILED'."""
    dags = tmp_path / "dags"
    dags.mkdir()
    (dags / "e2e_druid_failure.py").write_text(FAILING_DAG)
    out = tmp_path / "exception.txt"
    env = {**airflow_env, "AIRFLOW__CORE__DAGS_FOLDER": str(dags), "E2E_REPO": str(ROOT), "E2E_EVENTS": str(events_dir),
           "E2E_FAILURE_OUT": str(out), "E2E_KEY": str(time.time())}
    proc = subprocess.run([AIRFLOW, "dags", "test", "e2e_druid_failure", "2026-11-05"], env=env, capture_output=True,
                          text=True)
    assert PASSWORD not in proc.stdout + proc.stderr
    text = out.read_text()
    with DruidClient(ClusterConfig(url=druid_url)) as client:
        druid_task_id = text.split("Druid task ", 1)[1].split(" ", 1)[0]
        status = client.status(druid_task_id)
        full = client.report_summary(druid_task_id).error_msg
    assert status.state == "FAILED" and "characters omitted" in status.error_msg  # Druid cut the status text
    assert full and len(full) > len(status.error_msg)
    assert full in text  # the whole message from the report
    assert "Max parse exceptions[0] exceeded" in text
    assert "rows: processed=0" in text and "unparseable=1" in text  # row stats
    assert "unparseable events (first 1 of 1)" in text and "Timestamp[null] is unparseable" in text
