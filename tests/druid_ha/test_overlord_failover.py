"""Overlord failover on the ha cluster (``DRUID_CLUSTER=ha bash dev/druid/druid.sh start``; DRUID_HA_URL).

One SIGKILL of the Overlord leader while, all through the Router and with the core's DEFAULT retry policy,
20 async waits and 2 async submits (``AsyncDruidClient``) and 10 sync waits and 2 sync submits
(``DruidClient``, one per thread) are in flight: every wait ends in SUCCESS, no task is duplicated, and the
timeline (kill, Router answers, new leader, each wait's completion, the task lists before and after) is printed.
The two variants share the kill so the suite pays for one failover; the killed Overlord is started again at the
end (the cluster is whole for the next run).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning.spec import render_spec
from druid_ingest.wire._config import ClusterConfig

from tests.druid_ha.conftest import ROOT, druid_sh, http

pytestmark = [pytest.mark.druid_ha, pytest.mark.timeout(900)]
DAYS = [f"2024-01-0{d}" for d in range(1, 8)]
ASYNC_FIRST, ASYNC_LATE, SYNC_LATE = DAYS[:3], DAYS[3:5], DAYS[5:7]
POLL = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)
OVERLORDS = {18081: "coordinator-overlord", 18181: "coordinator-overlord2"}


def _next(day: str) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(time.mktime(time.strptime(day, "%Y-%m-%d")) + 86400 + 3600))


def _pid_on(port: int, var_dir: Path) -> int:
    for f in (var_dir / "run").glob("coordinator-overlord*.pid"):
        pid = int(f.read_text())
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        if f"-Ddruid.plaintextPort={port} " in cmd:
            return pid
    raise AssertionError(f"no overlord pid for port {port} under {var_dir}/run")


def _tasks(url: str, datasource: str) -> list[tuple[str, str]]:
    """(id, status) of the index_parallel supervisors (their partial_* subtasks are Druid's own)."""
    status, body = http(f"{url}/druid/indexer/v1/tasks?datasource={datasource}")
    assert status == 200, (status, body)
    return sorted((t["id"], t["status"]) for t in json.loads(body) if t["id"].startswith("ingest_"))


class Timeline:
    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.lines: list[str] = []
        self.lock = threading.Lock()

    def now(self) -> float:
        return time.monotonic() - self.t0

    def mark(self, what: str) -> None:
        with self.lock:
            self.lines.append(f"{self.now():7.2f}s {what}")


def _watch_leaders(url: str, survivor: int, tl: Timeline, stop: threading.Event, on_leader: threading.Event) -> None:
    """Every 0.2 s: what the Router answers for /leader, and whether the survivor thinks it leads; marks changes."""
    last: tuple[Any, ...] = ()
    while not stop.is_set():
        rs, rbody = http(f"{url}/druid/indexer/v1/leader", timeout=3)
        ss, sbody = http(f"http://127.0.0.1:{survivor}/druid/indexer/v1/isLeader", timeout=3)
        now = (rs, rbody[:60].split("\n")[0], ss, sbody[:30])
        if now != last:
            tl.mark(f"Router GET /leader -> {rs} {now[1]!r}; survivor :{survivor} isLeader -> {ss} {sbody[:30]}")
            last = now
        if ss == 200 and '"leader":true' in sbody:
            on_leader.set()
        stop.wait(0.2)


def _restart_after_takeover(name: str, on_leader: threading.Event, tl: Timeline, stop: threading.Event,
                            restarted: list[str]) -> None:
    """Start the killed Overlord again once the survivor leads, while the waits go on (the cluster ends whole)."""
    while not on_leader.wait(0.5):
        if stop.is_set():
            return
    try:
        druid_sh("start", name)
        restarted.append(name)
        tl.mark(f"{name} restarted (healthy, a follower now)")
    except AssertionError as exc:  # a thread cannot fail the test: say so in the timeline, restart at the end
        tl.mark(f"{name} did not restart: {exc}")


def test_overlord_leader_sigkill_mid_wait(ha_url: str, ha_var_dir: Path, tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(tmp_path),
                    "--start", DAYS[0], "--days", str(len(DAYS))], check=True, capture_output=True)
    template = json.loads((ROOT / "dags/specs/events_web.json").read_text())
    ds = f"ha_failover_{int(time.time())}"
    config = ClusterConfig(url=ha_url, read_timeout=60)  # and the default RetryPolicy: what a user gets

    def spec(day: str) -> dict[str, Any]:
        return render_spec(template, datasource=ds, intervals=[f"{day}T00:00:00Z/{_next(day)}T00:00:00Z"],
                           input_locations=[str(tmp_path / day)])

    tl = Timeline()
    stop, on_leader = threading.Event(), threading.Event()
    killed: list[str] = []
    restarter: list[threading.Thread] = []
    restarted: list[str] = []
    pool = ThreadPoolExecutor(max_workers=12)

    def sync_wait(task_id: str, n: int) -> str:
        with DruidClient(config) as client:
            outcome = client.watch_task(task_id, timeout=600, schedule=POLL)
        tl.mark(f"sync wait #{n} ({task_id[-16:]}) done: {outcome.kind}: {outcome.message[:160]}")
        return outcome.kind

    def sync_submit(day: str) -> str:
        with DruidClient(config) as client:
            o = client.ensure_submitted(spec(day), idempotency_key=f"ha-{day}")
        tl.mark(f"sync submit {day} done: {o.task_id} {o.action}")
        return o.task_id

    async def run() -> tuple[list[str], list[str], list[str], list[str]]:
        async with AsyncDruidClient(config) as client:
            first = [await client.ensure_submitted(spec(d), idempotency_key=f"ha-{d}") for d in ASYNC_FIRST]
            ids = [o.task_id for o in first]
            tl.mark(f"submitted {ids}")
            tl.mark(f"task list before: {_tasks(ha_url, ds)}")
            waits = [asyncio.create_task(client.watch_task(ids[i % len(ids)], timeout=600, schedule=POLL))
                     for i in range(20)]
            sync_waits: list[Future[str]] = [pool.submit(sync_wait, ids[i % len(ids)], i) for i in range(10)]
            await asyncio.sleep(1.0)
            status, leader = http(f"{ha_url}/druid/indexer/v1/leader")
            assert status == 200, (status, leader)
            port = int(leader.rsplit(":", 1)[1])
            survivor = next(p for p in OVERLORDS if p != port)
            pid = _pid_on(port, ha_var_dir)
            watcher = threading.Thread(target=_watch_leaders, args=(ha_url, survivor, tl, stop, on_leader),
                                       daemon=True)
            submits = [asyncio.create_task(client.ensure_submitted(spec(d), idempotency_key=f"ha-{d}"))
                       for d in ASYNC_LATE]
            for s_task in submits:
                s_task.add_done_callback(
                    lambda t: tl.mark(f"async submit done: {t.result().task_id} {t.result().action}"
                                      if not t.exception() else f"async submit FAILED: {t.exception()}"))
            sync_submits = [pool.submit(sync_submit, d) for d in SYNC_LATE]
            os.kill(pid, signal.SIGKILL)
            killed.append(OVERLORDS[port])
            restarter.append(threading.Thread(target=_restart_after_takeover,
                                              args=(OVERLORDS[port], on_leader, tl, stop, restarted)))
            restarter[0].start()
            tl.mark(f"SIGKILL overlord leader {leader} (pid {pid}); 20 async + 10 sync waits, 2 + 2 submits in flight")
            watcher.start()
            results: list[str] = []
            for i, w in enumerate(asyncio.as_completed(waits)):
                outcome = await w
                tl.mark(f"async wait #{i} done: {outcome.kind}: {outcome.message[:160]}")
                results.append(outcome.kind)
            ids += [(await s_task).task_id for s_task in submits]
            sync_results = [await asyncio.wrap_future(f) for f in sync_waits]
            sync_ids = [await asyncio.wrap_future(f) for f in sync_submits]
            return results, sync_results, ids, sync_ids

    try:
        results, sync_results, ids, sync_ids = asyncio.run(run())
        after = _tasks(ha_url, ds)
        tl.mark(f"task list after: {after}")
    finally:
        stop.set()
        pool.shutdown(wait=True)
        for r in restarter:
            r.join()
        if killed and not restarted:
            druid_sh("start", *killed)  # no take-over seen, or the restart failed: still leave the cluster whole
        print("\n".join(["", f"== overlord failover timeline ({ds}) ==", *tl.lines]))
    after_ids = [i for i, _ in after]
    assert len(after_ids) == len(set(after_ids)) == len(set(ids + sync_ids)) == len(DAYS), (after, ids, sync_ids)
    assert len(results) == 20 and set(results) == {"success"}, results
    assert len(sync_results) == 10 and set(sync_results) == {"success"}, sync_results
