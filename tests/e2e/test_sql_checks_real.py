"""common.sql checks on a ``druid_cluster`` connection against the real Druid, run by ``airflow dags test``.

The DAG is ``dags/example_druid_check.py``'s (``build_check_dag``) on a datasource of this test's own, plus
``SQLTableCheckOperator`` and ``SQLColumnCheckOperator`` on the same day: green on the generator's data; red with
both numbers once the day was replaced by fewer rows (the ingest task then adopts its succeeded Druid task and
its gate says the day is served by the later version, so the check is what catches the difference).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning.spec import render_spec

pytestmark = pytest.mark.timeout(900)
ROOT = Path(__file__).resolve().parents[2]
AIRFLOW = str(Path(sys.executable).with_name("airflow"))
DATASOURCE = "e2e_sqlchk_events"
DAY, LOGICAL = "2026-11-01", "2026-11-02"  # CronDataIntervalTimetable: the run of 11-02 checks [11-01, 11-02)
POLL = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)

CHECK_DAG = '''
import importlib.util
import os

from airflow.providers.common.sql.operators.sql import SQLColumnCheckOperator, SQLTableCheckOperator

spec = importlib.util.spec_from_file_location("example_druid_check",
                                              os.environ["E2E_REPO"] + "/dags/example_druid_check.py")
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)

DS = os.environ["E2E_DATASOURCE"]
DAY_CLAUSE = ("__time >= TIMESTAMP '{{ data_interval_start.strftime('%Y-%m-%d %H:%M:%S') }}' "
              "AND __time < TIMESTAMP '{{ data_interval_end.strftime('%Y-%m-%d %H:%M:%S') }}'")

dag = example.build_check_dag(dag_id="e2e_sqlchk", datasource=DS, root=os.environ["E2E_EVENTS"])
with dag:
    table = SQLTableCheckOperator(
        task_id="table_checks", conn_id="druid_cluster_default", table=f'"{DS}"', partition_clause=DAY_CLAUSE,
        checks={"rows_present": {"check_statement": "COUNT(*) > 0"},
                "bytes_positive": {"check_statement": '"bytes" > 0'}})
    columns = SQLColumnCheckOperator(
        task_id="column_checks", conn_id="druid_cluster_default", table=f'"{DS}"', partition_clause=DAY_CLAUSE,
        column_mapping={"page_id": {"min": {"geq_to": 1}, "max": {"leq_to": 20}, "null_check": {"equal_to": 0}}})
    dag.get_task("ingest_events_web") >> [table, columns]
'''


@pytest.fixture(scope="module")
def airflow_env(tmp_path_factory: pytest.TempPathFactory, druid_url: str, events_dir: Path) -> dict[str, str]:
    home = tmp_path_factory.mktemp("airflow-home-sqlchk")
    dags = tmp_path_factory.mktemp("dags-sqlchk")
    (dags / "e2e_sqlchk.py").write_text(CHECK_DAG)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env.update(
        AIRFLOW_HOME=str(home), AIRFLOW__CORE__DAGS_FOLDER=str(dags), AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__LOGGING__LOGGING_LEVEL="INFO",
        AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT=json.dumps({"conn_type": "druid_cluster", "host": druid_url,
                                                       "extra": {"context": {"priority": 5}}}),
        E2E_REPO=str(ROOT), E2E_EVENTS=str(events_dir), E2E_DATASOURCE=DATASOURCE,
    )
    subprocess.run([AIRFLOW, "db", "migrate"], env=env, check=True, capture_output=True)
    subprocess.run([AIRFLOW, "pools", "set", "druid_ingest", "4", "Druid slots", "--include-deferred"],
                   env=env, check=True, capture_output=True)
    return env


def dags_test(env: dict[str, str], key: str) -> tuple[int, str]:
    """One run of the check DAG; ``key`` (the DAG's ``idempotency_key`` param) names its Druid task."""
    proc = subprocess.run([AIRFLOW, "dags", "test", "e2e_sqlchk", LOGICAL, "--conf",
                           json.dumps({"idempotency_key": key})], env=env, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def druid_rows(client: DruidClient) -> Any:
    return client.sql(f'SELECT SUM("rows") AS n FROM "{DATASOURCE}" WHERE __time >= TIMESTAMP \'{DAY} 00:00:00\' '
                      f"AND __time < TIMESTAMP '{DAY} 00:00:00' + INTERVAL '1' DAY")[0]["n"]


def replace_day_with_fewer_rows(client: DruidClient, spec_template: dict, events_dir: Path, tmp_path: Path,
                                keep: int) -> None:
    """Another ingestion replaces the day with the first ``keep`` source rows only (a tampered day)."""
    folder = tmp_path / "tampered" / DAY
    folder.mkdir(parents=True)
    lines = (events_dir / DAY / "events.json").read_text().splitlines()[:keep]
    (folder / "events.json").write_text("\n".join(lines) + "\n")
    spec = render_spec(spec_template, datasource=DATASOURCE, intervals=[f"{DAY}T00:00:00Z/2026-11-02T00:00:00Z"],
                       input_locations=[str(folder)])
    outcome = client.ensure_submitted(spec, idempotency_key=f"tamper-{time.time()}")
    assert client.wait_for_task(outcome.task_id, timeout=300, schedule=POLL).state == "SUCCESS"
    target = client.handoff_target(outcome.task_id, DATASOURCE, spec["spec"]["dataSchema"]["granularitySpec"][
        "intervals"])
    client.wait_for_handoff(target, timeout=300, schedule=POLL)


def test_checks_green_on_good_data_then_red_with_both_numbers_on_a_tampered_day(
        airflow_env, real, expected, spec_template, events_dir, tmp_path) -> None:
    source_rows = expected[DAY]["rows"]
    key = f"e2e-sqlchk-{time.time()}"  # a fresh Druid task: the day is the generator's whatever a last run left
    code, out = dags_test(airflow_env, key)
    assert code == 0, out[-5000:]
    # all three checks ran through DruidSqlHook (common.sql logs each statement it runs)
    assert f'Running statement: SELECT COALESCE(SUM("rows"), 0) AS druid_rows FROM "{DATASOURCE}"' in out
    assert "Running statement: SELECT check_name, check_result FROM" in out
    assert "Running statement: SELECT col_name, check_type, check_result FROM" in out
    assert druid_rows(real) == source_rows

    keep = source_rows - 500
    replace_day_with_fewer_rows(real, spec_template, events_dir, tmp_path, keep)
    deadline = time.monotonic() + 60
    while druid_rows(real) != keep and time.monotonic() < deadline:  # the Broker's view trails by a moment
        time.sleep(1)
    assert druid_rows(real) == keep

    code, out = dags_test(airflow_env, key)  # adopts the green run's task; the gate says the day is superseded
    assert code != 0, out[-5000:]
    both = rf"Test failed.\nPass value:{source_rows}\.0\n(?:.*\n){{3}}Results:\n\({keep},\)"
    assert re.search(both, out), out[-5000:]
