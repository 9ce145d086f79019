"""Overlord failover on the ha cluster (``DRUID_CLUSTER=ha bash dev/druid/druid.sh start``; DRUID_HA_URL).

SIGKILL the Overlord leader while 20 async waits and 2 submits are in flight, all through the Router: every wait
ends in SUCCESS, no task is duplicated, and the timeline (kill, new leader, first good answer) is printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.planning.spec import render_spec
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import PollSchedule, RetryPolicy

pytestmark = [pytest.mark.druid_ha, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[2]
DAYS = ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"]
NEXT = {"2024-01-01": "2024-01-02", "2024-01-02": "2024-01-03", "2024-01-03": "2024-01-04",
        "2024-01-04": "2024-01-05", "2024-01-05": "2024-01-06"}


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except OSError as e:
        return 0, str(e)


def _pid_on(port: int, var_dir: Path) -> int:
    for f in (var_dir / "run").glob("coordinator-overlord*.pid"):
        pid = int(f.read_text())
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        if f"-Ddruid.plaintextPort={port} " in cmd:
            return pid
    raise AssertionError(f"no overlord pid for port {port} under {var_dir}/run")


def _task_ids(url: str, datasource: str) -> list[str]:
    out: list[str] = []
    for kind in ("tasks",):
        status, body = _get(f"{url}/druid/indexer/v1/{kind}?datasource={datasource}")
        assert status == 200, (status, body)
        # the index_parallel supervisors only (their partial_* subtasks are Druid's own)
        out += [t["id"] for t in json.loads(body) if t["id"].startswith("ingest_")]
    return sorted(out)


@pytest.fixture(scope="session")
def ha_url() -> str:
    url = os.environ.get("DRUID_HA_URL")
    if not url:
        pytest.fail("DRUID_HA_URL is not set: start DRUID_CLUSTER=ha bash dev/druid/druid.sh start and export "
                    "DRUID_HA_URL=http://127.0.0.1:18888", pytrace=False)
    return url


def test_overlord_leader_sigkill_mid_wait(ha_url: str, tmp_path: Path) -> None:
    var_dir = Path(os.environ.get("DRUID_HA_VAR_DIR", ROOT / "dev/druid/var-ha"))
    subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(tmp_path),
                    "--start", DAYS[0], "--days", str(len(DAYS))],
                   check=True, capture_output=True)
    template = json.loads((ROOT / "dags/specs/events_web.json").read_text())
    ds = f"ha_failover_{int(time.time())}"

    def spec(day: str) -> dict[str, Any]:
        return render_spec(template, datasource=ds, intervals=[f"{day}T00:00:00Z/{NEXT[day]}T00:00:00Z"],
                           input_locations=[str(tmp_path / day)])

    timeline: list[str] = []
    t0 = time.monotonic()

    def mark(what: str) -> None:
        timeline.append(f"{time.monotonic() - t0:7.2f}s {what}")

    retry = RetryPolicy(max_attempts=30, initial_delay=0.5, max_delay=3, deadline=240)
    poll = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)

    async def run() -> dict[str, str]:
        async with AsyncDruidClient(ClusterConfig(url=ha_url, read_timeout=60), retry) as client:
            first = [await client.ensure_submitted(spec(d), idempotency_key=f"ha-{d}") for d in DAYS[:3]]
            ids = [o.task_id for o in first]
            mark(f"submitted {ids}")
            before = _task_ids(ha_url, ds)
            mark(f"task list before: {before}")
            waits = [asyncio.create_task(client.watch_task(ids[i % len(ids)], timeout=600, schedule=poll))
                     for i in range(20)]
            await asyncio.sleep(1.0)
            status, leader = _get(f"{ha_url}/druid/indexer/v1/leader")
            assert status == 200, (status, leader)
            port = int(leader.rsplit(":", 1)[1])
            pid = _pid_on(port, var_dir)
            submits = [asyncio.create_task(client.ensure_submitted(spec(d), idempotency_key=f"ha-{d}"))
                       for d in DAYS[3:]]
            os.kill(pid, signal.SIGKILL)
            mark(f"SIGKILL overlord leader {leader} (pid {pid})")
            new = leader
            while new == leader:
                s, body = _get(f"{ha_url}/druid/indexer/v1/leader")
                if s != 200 or body != leader:
                    mark(f"GET /leader -> {s} {body[:80]!r}")
                if s == 200:
                    new = body
                await asyncio.sleep(0.2)
            mark(f"new leader {new}")
            results: dict[str, str] = {}
            for i, w in enumerate(asyncio.as_completed(waits)):
                outcome = await w
                mark(f"wait #{i} done: {outcome}")
                results[f"w{i}"] = str(outcome)
            for s_task in submits:
                o = await s_task
                mark(f"submit done: {o.task_id} {o.action}")
                ids.append(o.task_id)
            after = _task_ids(ha_url, ds)
            mark(f"task list after: {after}")
            assert len(after) == len(set(after)) == len(set(ids)) == 5, (after, ids)
            return results

    try:
        results = asyncio.run(run())
    finally:
        print("\n".join(["", "== overlord failover timeline ==", *timeline]))
    assert all("SUCCESS" in r or "success" in r for r in results.values()), results
