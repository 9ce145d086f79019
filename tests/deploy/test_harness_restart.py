"""dev/airflow/airflow.sh around a killed service, on the real deployment: `status` says when the scheduler runs
without its log server, and `start` after the scheduler's leader was SIGKILLed stops what is left of its
process group (serve-logs holding the log port, idle LocalExecutor workers) before the new scheduler starts,
so the new one serves its logs again."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import psutil

from tests.deploy.conftest import HARNESS


def _harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(HARNESS), *args], capture_output=True, text=True, timeout=300)


def _group(pgid: int) -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(p.pid) == pgid:
                out.append(p)
        except (ProcessLookupError, psutil.Error):
            continue
    return out


def _port_owner(port: int) -> int | None:
    for c in psutil.net_connections(kind="tcp"):
        if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid:
            return c.pid
    return None


def _wait(what: str, cond, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (value := cond()):
        assert time.monotonic() < deadline, f"not within {timeout:.0f}s: {what}"
        time.sleep(0.3)
    return value


def _scheduler_line(status: str) -> str:
    return next(line for line in status.splitlines() if line.startswith("scheduler "))


def test_killed_scheduler_restart_reaps_its_orphans_and_status_sees_a_missing_log_server(deploy_env):
    run_dir = Path(deploy_env["AIRFLOW_HOME"]).parent / "run"
    port = int(deploy_env["AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT"])
    pid = int((run_dir / "scheduler.pid").read_text())
    owner = _wait(f"a log server on :{port}", lambda: _port_owner(port))
    assert os.getpgid(owner) == pid, f"the log server on :{port} (pid {owner}) is not the scheduler's child"

    # 1. the log server alone dies: the scheduler runs on without it, and status must say so
    os.kill(owner, signal.SIGKILL)
    _wait(f":{port} closed", lambda: _port_owner(port) is None)
    status = _harness("status")
    print(f"\n[harness] after SIGKILL of serve-logs (pid {owner}):\n{status.stdout}")
    assert status.returncode == 1
    assert "degraded" in _scheduler_line(status.stdout) and f"no log server on :{port}" in status.stdout

    # 2. the scheduler's leader dies (as the OOM killer or a kill -9 would): its children keep its group
    os.kill(pid, signal.SIGKILL)
    _wait(f"scheduler leader {pid} gone", lambda: not psutil.pid_exists(pid) or
          psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    left = _group(pid)
    assert left, "the killed scheduler left no process behind: the case this test exists for did not happen"
    print(f"[harness] the killed scheduler left {len(left)} processes: {[p.name() for p in left]}")
    status = _harness("status")
    assert status.returncode == 1 and "stopped" in _scheduler_line(status.stdout)

    started = _harness("start")
    print(f"[harness] start:\n{started.stderr[-1500:]}")
    assert started.returncode == 0, started.stderr[-3000:]
    assert f"scheduler (pid {pid}) is gone but left processes of its group running" in started.stderr
    assert _group(pid) == [], f"processes of the dead scheduler's group still run: {_group(pid)}"
    new = int((run_dir / "scheduler.pid").read_text())
    assert new != pid
    owner = _wait(f"the new scheduler's log server on :{port}", lambda: _port_owner(port), timeout=60)
    assert os.getpgid(owner) == new
    status = _harness("status")
    print(f"[harness] after start:\n{status.stdout}")
    assert status.returncode == 0, status.stdout
    assert "healthy" in _scheduler_line(status.stdout)
