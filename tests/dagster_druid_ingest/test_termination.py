"""Terminating a run shuts its Druid task down: the example definitions through the real ``dagster`` CLI,
against the fake Druid, signalled while the Druid task runs.

Dagster terminates a run by interrupting the process executing it (the UI's "Terminate" makes the code server
send SIGINT to the run worker; Kubernetes sends SIGTERM, which Dagster maps to SIGINT), and the multiprocess
executor passes the interrupt on to each step's own process. That is what is done here, to the CLI process
running the run, so the whole chain (executor -> step subprocess -> our step) is the one a deployment uses.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from druid_ingest.testing import FakeDruid, TaskPlan

from tests.druid_ingest.testing.waiting import wait_until

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]
DAGSTER = str(Path(sys.executable).with_name("dagster"))
PASSWORD = "never-printed-Pa55"


def cli_env(fake: FakeDruid, home: Path, datasource: str) -> dict[str, str]:
    (home / "dagster.yaml").write_text("")
    return {**os.environ, "DAGSTER_HOME": str(home), "DRUID_URL": fake.url, "DRUID_USER": "admin",
            "DRUID_PASSWORD": PASSWORD, "DRUID_EVENTS_DATASOURCE": datasource, "DRUID_EVENTS_ROOT": "/data/events"}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT-ui-terminate", "SIGTERM-k8s"])
def test_terminating_the_run_shuts_the_druid_task_down(fake_druid: FakeDruid, tmp_path: Path, sig: int) -> None:
    fake_druid.default_plan = TaskPlan(duration=120)  # runs far longer than the test
    run = subprocess.Popen(
        [DAGSTER, "asset", "materialize", "-f", str(ROOT / "examples/dagster/definitions.py"),
         "--select", "dg_term", "--partition", "2026-11-02"],
        env=cli_env(fake_druid, tmp_path, "dg_term"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        submitted = wait_until(lambda: [r.json["id"] for r in fake_druid.requests_matching("POST", "/druid/indexer/")
                                        if r.path == "/druid/indexer/v1/task"], timeout=60)
        task_id = submitted[0]
        status_path = f"/druid/indexer/v1/task/{task_id}/status"
        wait_until(lambda: len(fake_druid.requests_matching("GET", status_path)) >= 3, timeout=30)  # polling
        assert fake_druid.task(task_id).state == "RUNNING"
        run.send_signal(sig)
        out, _ = run.communicate(timeout=60)
    finally:
        if run.poll() is None:  # a wait above failed: show what the run printed (pytest shows it on failure)
            run.kill()
            print("dagster asset materialize output:\n" + run.communicate()[0][-4000:])
    # every assertion carries the run's output: a failure seen once under load (issue 27, item 8) left none
    tail = f"exit {run.returncode}; output tail:\n{out[-4000:]}"
    assert run.returncode != 0, tail
    assert fake_druid.requests_matching("POST", f"/druid/indexer/v1/task/{task_id}/shutdown"), tail
    task = fake_druid.task(task_id)
    assert task.state == "FAILED" and task.error_msg == "Shutdown request from user", (task.state, tail)
    assert f"Shut down Druid task {task_id} (the Dagster run was terminated)" in out, tail
    assert PASSWORD not in out
