"""The CLI commands that talk to Airflow: ``check-dags`` against the deployment's pools, ``pool --apply``."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from druid_ingest.testing import FakeDruid

from airflow_provider_druid_ingest.cli import main

from .conftest import AIRFLOW_BIN, REPO

pytestmark = pytest.mark.usefixtures("airflow_db")

DAG = textwrap.dedent('''
    import json
    import pendulum
    from airflow.sdk import DAG
    from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

    SPEC = json.load(open("{spec}"))
    SPEC["spec"]["tuningConfig"]["maxNumConcurrentSubTasks"] = 4   # 5 slots at peak
    with DAG("five_slots", schedule=None, start_date=pendulum.datetime(2026, 11, 1, tz="UTC")):
        DruidIngestOperator(task_id="too_big", spec=SPEC, pool="four_slots")
        DruidIngestOperator(task_id="no_pool", spec=SPEC, pool="missing_pool", pool_slots=1)
        DruidIngestOperator(task_id="not_deferred", spec=SPEC, pool="plain", pool_slots=1)
''')


def airflow(*args: str) -> str:
    done = subprocess.run([AIRFLOW_BIN, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_check_dags_reports_a_five_slot_task_in_a_four_slot_pool(tmp_path: Path, capsys) -> None:
    airflow("pools", "set", "four_slots", "4", "Druid task slots", "--include-deferred")
    airflow("pools", "set", "plain", "8", "counts running tasks only")
    (tmp_path / "five.py").write_text(DAG.format(spec=REPO / "dags/specs/events_web.json"))
    with FakeDruid(worker_capacity=4) as fake:
        assert main(["check-dags", "--dags", str(tmp_path), "--url", fake.url, "--json"]) == 1
    findings = {(f["task_id"], f["level"]): f["message"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "needs 5 pool slot(s) but pool 'four_slots' has 4" in findings[("too_big", "error")]
    assert "stays 'scheduled' forever" in findings[("too_big", "error")]
    assert "needs 5 Druid task slots at peak but the cluster has 4" in findings[("too_big", "warning")]
    assert "'missing_pool' does not exist" in findings[("no_pool", "error")]
    assert "does not count deferred tasks" in findings[("not_deferred", "warning")]


def test_the_example_dags_pass_and_pool_apply_sets_the_pool(tmp_path: Path, capsys) -> None:
    airflow("pools", "set", "druid_ingest", "3", "Druid task slots", "--include-deferred")
    assert main(["check-dags", "--dags", str(REPO / "dags")]) == 0
    capsys.readouterr()
    with FakeDruid(worker_capacity=8) as fake:
        assert main(["pool", "--url", fake.url, "--spec", str(REPO / "dags/specs/events_web.json"), "--name",
                     "applied_pool", "--apply", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["applied"] is True and data["pool_slots"] == 6
    pools = {p["pool"]: p for p in json.loads(airflow("pools", "list", "--output", "json"))}
    assert int(pools["applied_pool"]["slots"]) == 6 and str(pools["applied_pool"]["include_deferred"]) == "True"
