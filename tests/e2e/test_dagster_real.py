"""The example Dagster definitions, run by the real ``dagster`` CLI against the real Druid, checked by Druid SQL.

Three daily partitions are materialized one CLI run each (asset, then its blocking ``segments_queryable``
gate); the moment each run ends, Druid SQL must return the generator's counts for that day. Re-materializing one
partition must adopt its succeeded Druid task: no new task in Druid. A fresh idempotency key per test run (run
config) makes the first three real submissions even when the cluster kept an earlier run's tasks.
"""

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
from druid_ingest.wire._config import ClusterConfig

from tests import druid_sql

pytestmark = pytest.mark.timeout(1500)
ROOT = Path(__file__).resolve().parents[2]
DAGSTER = str(Path(sys.executable).with_name("dagster"))
DATASOURCE = "dg_e2e_events"  # our own: the cluster is shared
DAYS = ("2026-11-01", "2026-11-02", "2026-11-03")
PASSWORD = "never-printed-Pa55"


@pytest.fixture(scope="module")
def dagster_env(tmp_path_factory: pytest.TempPathFactory, druid_url: str, events_dir: Path) -> dict[str, str]:
    home = tmp_path_factory.mktemp("dagster-home")
    (home / "dagster.yaml").write_text("")
    # The dev cluster has no basic auth: the password is sent and ignored, and must never be printed.
    return {**os.environ, "DAGSTER_HOME": str(home), "DRUID_URL": druid_url, "DRUID_USER": "admin",
            "DRUID_PASSWORD": PASSWORD, "DRUID_EVENTS_DATASOURCE": DATASOURCE, "DRUID_EVENTS_ROOT": str(events_dir)}


def materialize(env: dict[str, str], day: str, key: str) -> tuple[str, float]:
    config = json.dumps({"ops": {DATASOURCE: {"config": {"idempotency_key": key}}}})
    started = time.monotonic()
    proc = subprocess.run([DAGSTER, "asset", "materialize", "-f", str(ROOT / "examples/dagster/definitions.py"),
                           "--select", DATASOURCE, "--partition", day, "--config-json", config],
                          env=env, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert PASSWORD not in out
    check_passed(env, out)
    return out, time.monotonic() - started


def check_passed(env: dict[str, str], out: str) -> None:
    """The run's ``segments_queryable`` check passed, read from the run's instance (DAGSTER_HOME), not from the
    console: under load the multiprocess executor's child sometimes exits before its last log lines (the check
    evaluation, STEP_SUCCESS) reach the console, while the event log has them."""
    from dagster import AssetCheckKey, AssetKey, DagsterInstance
    from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

    run_id = re.search(r"__ASSET_JOB - ([0-9a-f-]{36}) - \d+ - RUN_SUCCESS", out)
    assert run_id, out[-4000:]
    key = AssetCheckKey(AssetKey(DATASOURCE), "segments_queryable")
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        history = instance.event_log_storage.get_asset_check_execution_history(key, limit=20)
    mine = [r for r in history if r.run_id == run_id.group(1)]
    assert mine and mine[0].status == AssetCheckExecutionRecordStatus.SUCCEEDED, (mine, out[-2000:])


def day_counts(client: DruidClient, day: str) -> dict[str, Any]:
    return druid_sql.day_counts(client, DATASOURCE, day)  # DATASOURCE read at call time (the component test sets it)


def test_three_partitions_through_the_cli_are_queryable_and_a_rerun_adopts(dagster_env, druid_url,
                                                                           expected) -> None:
    key = f"e2e-{int(time.time())}"
    tasks: dict[str, str] = {}
    with DruidClient(ClusterConfig(url=druid_url, read_timeout=120)) as client:
        for day in DAYS:
            out, took = materialize(dagster_env, day, key)
            submitted = re.search(r"Submitted Druid task (\S+) \(attempt 0\)", out)
            assert submitted, out[-4000:]
            tasks[day] = submitted.group(1)
            # green means queryable: the counts are complete the moment the run ends, without waiting
            assert day_counts(client, day) == expected[day]
            print(f"{day}: materialized in {took:.1f}s as Druid task {tasks[day]}")
        before = {t.task_id for t in client.completed_tasks(datasource=DATASOURCE, limit=None)}
        assert set(tasks.values()) <= before

        again, took = materialize(dagster_env, DAYS[1], key)
        assert f"Adopted existing Druid task {tasks[DAYS[1]]} (state SUCCESS" in again
        assert "Submitted Druid task" not in again
        after = {t.task_id for t in client.completed_tasks(datasource=DATASOURCE, limit=None)}
        running = [s for s in client.bulk_status(list(tasks.values())).values() if not s.is_terminal]
        assert after == before and running == []  # no new Druid task
        assert day_counts(client, DAYS[1]) == expected[DAYS[1]]
        print(f"re-materialized {DAYS[1]} in {took:.1f}s: adopted {tasks[DAYS[1]]}")
