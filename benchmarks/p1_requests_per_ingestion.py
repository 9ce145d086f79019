"""P1: HTTP requests per ingestion and detection latency, for 1-, 10- and 60-minute Druid tasks.

Default run (issue 20): the detection-latency target ``detect_within`` of 5, 30 and 120 s for each task length:
``ours+history`` and ``ours, no history`` at that target against the floor (below) and the official provider.
``--classic`` runs the earlier table (no target: ours, no history, fixed @ours p95, official, guide loop).

Everything runs against the fake Druid over real HTTP, on a *simulated* clock shared by the fake, the client and
every cache it keeps (``WaitMemory.on_clock``): a sleep advances the clock instead of waiting, so an hour of
polling takes seconds, and a daily run pays what a real one pays. Each ingestion is ``DruidClient.ingest``, the
operator's steps in its order (capacity check, ensure_submitted, the wait, the gate); every request is counted.
Default variants (``targets``): ``history`` (daily runs; a new capacity cache per run, as Airflow forks a process
per task; the wait's memory lives on, as in a triggerer), ``first-ever`` (a new datasource and process each),
``backfill, one process`` (10 min: back to back, one process) and ``check_every=None`` (60 min). ``--classic``
keeps the issue-19 variants (``fixed @ours p95``; ``official provider``: ``DruidHook.submit_indexing_job`` in
``benchmarks/.venv-official`` by ``p1_official.py``, else its issue-20 figures; ``guide loop``: the tutorial's).

Detection latency = the simulated time from the fake's task end to the client's first answer saying so.

The floor at a target T (``floor``): ``FIXED`` = 7 requests no schedule can avoid (the id probe, the input
probe, the submit, one report, one gate check of 3 calls: metadata, served ids, Broker), plus the status reads
the cheapest schedule needs, on average, so that 95 % of the runs are seen within T. A read at time t sees the
ends in (t - T, t], and a wait stops at the read that sees the end: with history (the run-time distribution
known, here uniform +-2 %, so 95 % of the runs end within a window W = 0.95 * 4 % of the duration) reads T
apart from the window's start, and a run ending u into it costs ceil(u / T) of them (at least 1); without
history (no idea when it ends) reads T apart from the start, ceil(end / T). The floor is their mean.

    .venv/bin/python benchmarks/p1_requests_per_ingestion.py [--samples 20] [--minutes 1 10 60] [--targets 5 30 120]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import statistics
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import requests
from druid_ingest import ClusterConfig, DruidClient, PollSchedule, RetryPolicy, build_plan
from druid_ingest.ops._history import CapacityCache, WaitMemory, percentile
from druid_ingest.testing import FakeDruid, SimClock, TaskPlan

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import machine, print_machine, write_results  # noqa: E402

DS = "p1_events"
FLOOR = 7  # the classic table's oracle (no input probe): id probe, submit, terminal status, report, gate x3
FIXED = 7  # every ingestion's unavoidable non-status requests: id probe, input probe, submit, report, gate x3
SPREAD = 0.02  # task durations vary uniformly by +-2 %
HANDOFF_DELAY = 8.0
DAY = 86400.0
#: the official provider's requests per ingestion from the issue-20 run (1 s polls: it depends on nothing we
#: change), used when benchmarks/.venv-official is missing
OFFICIAL_BEFORE = {1.0: 63.3, 10.0: 606.3, 60.0: 3624.0}
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.5, max_delay=2, deadline=60, jitter=False)


class Recorder(requests.Session):
    """A requests session that notes, on the simulated clock, when a status answer first said "ended"."""

    def __init__(self, clock: SimClock) -> None:
        super().__init__()
        self.clock = clock
        self.count = 0
        self.ended_at: dict[str, float] = {}

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        resp = super().request(method, url, *args, **kwargs)
        self.count += 1
        if url.endswith("/status") or url.endswith("/taskStatus"):
            try:
                body = resp.json()
            except ValueError:
                body = None
            entries = [body.get("status") or {}] if url.endswith("/status") and isinstance(body, dict) else (
                list(body.values()) if isinstance(body, dict) else [])
            for entry in entries:
                state = entry.get("statusCode") or entry.get("status")
                if state in ("SUCCESS", "FAILED") and entry.get("id"):
                    self.ended_at.setdefault(entry["id"], self.clock.now())
        return resp


def spec_for(day: int, datasource: str = DS) -> dict[str, Any]:
    """The example spec for day ``day`` after 2025-01-01 (one interval each, so tasks never share a lock)."""
    template = json.loads((HERE.parent / "dags/specs/events_web.json").read_text())
    first = dt.date(2025, 1, 1) + dt.timedelta(days=day)
    interval = f"{first}T00:00:00Z/{first + dt.timedelta(days=1)}T00:00:00Z"
    return build_plan(template, datasource=datasource, intervals=[interval], input_locations=[f"/data/{day}"]).spec


def floor(minutes: float, target: float, history: bool = True) -> float:
    """The fewest requests one ingestion needs, on average, for p95 detection latency <= ``target`` (module doc)."""
    duration = 60 * minutes
    if history:  # 95 % of the ends fall in a window W; a run ending u into it needs ceil(u / T) reads
        width = 0.95 * 2 * SPREAD * duration
        ends = [width * (i + 0.5) / 1000 for i in range(1000)]
    else:  # no idea when it ends: reads T apart from the start, ceil(end / T) of them
        ends = [duration * (1 - SPREAD + 2 * SPREAD * (i + 0.5) / 1000) for i in range(1000)]
    return FIXED + statistics.mean(max(1, math.ceil(end / target)) for end in ends)


def run_ours(minutes: float, samples: int, history: bool, fixed: float | None, rng: random.Random,
             target: float | None = None, warmup: int = 5, every: float = DAY, worker: str = "per-task",
             check_every: float | None = 600.0) -> dict[str, Any]:
    """``DruidClient.ingest`` (the operator's steps: capacity check, ensure_submitted, the wait and the gate) once
    every ``every`` simulated seconds, its caches aging on the simulated clock. ``history=False``: a first-ever
    ingestion, each sample a new datasource and a fresh process (nothing cached, no history in Druid).
    ``worker="per-task"``: the capacity check runs in a new process per ingestion, as Airflow 3 forks one per task
    instance (its ``GET /workers`` is never reused); the wait's memory (history, handoff delays) lives on, as in a
    long-lived triggerer. ``"shared"``: one process for all (a script, Dagster's in-process executor)."""
    clock = SimClock()
    warm = warmup if history else 0
    with FakeDruid(clock=clock.now, task_duration=60 * minutes, handoff_delay=HANDOFF_DELAY, pending_delay=0.5,
                   worker_capacity=16, overshadowed_grace=1e9) as fake:
        session = Recorder(clock)
        client = DruidClient(ClusterConfig(url=fake.url), RETRY, session, clock=clock.now, sleep=clock.sleep)
        memory = WaitMemory.on_clock(client.config.base_url("overlord"), clock.now)
        schedule = PollSchedule(fixed, fixed, 1.0) if fixed else PollSchedule(5.0, 60.0, 1.5, detect_within=target,
                                                                               check_every=check_every)
        counts, latencies, polls = [], [], []
        next_start = clock.now()
        for n in range(samples + warm):
            clock.sleep(max(0.0, next_start - clock.now()))  # the datasource's cadence (a daily run by default)
            next_start = clock.now() + every
            if not history:  # first-ever: a fresh process, a datasource Druid never ingested
                memory = WaitMemory.on_clock(memory.cluster, clock.now)
            elif worker == "per-task":
                memory = replace(memory, capacity=CapacityCache(clock=clock.now))
            client.wait_memory = memory
            fake.plan_next_task(TaskPlan(duration=60 * minutes * rng.uniform(1 - SPREAD, 1 + SPREAD)))
            before = session.count
            fake.clear_requests()
            spec = spec_for(n, DS if history else f"{DS}_{n}")
            result = client.ingest(build_plan(spec), task_timeout=6 * 3600, handoff_timeout=3600,
                                   schedule=schedule) if fixed is None else _fixed(client, spec, schedule)
            task = fake.task(result.submit.task_id)
            if n < warm:
                continue  # the warm-up that builds the history
            counts.append(session.count - before)
            polls.append(len([r for r in fake.requests if r.path.endswith("/status") or r.path.endswith("taskStatus")]))
            latencies.append(session.ended_at[task.id] - task.finished_at)
        client.close()
    return summarize(counts, latencies, polls)


def _fixed(client: DruidClient, spec: dict[str, Any], schedule: PollSchedule) -> Any:
    """Our client polling at one fixed interval, no prediction (the same steps and gate)."""
    from druid_ingest.ops import ingest

    return client._run(ingest(build_plan(spec), task_timeout=6 * 3600, handoff_timeout=3600, schedule=schedule,
                              clock=client.clock))


def run_guide(minutes: float, samples: int, rng: random.Random) -> dict[str, Any]:
    """The tutorial loop: POST with a pinned id, status every 5 s doubling to 30 s, then list all segments."""
    clock = SimClock()
    counts, latencies, polls = [], [], []
    with FakeDruid(clock=clock.now, task_duration=60 * minutes, handoff_delay=HANDOFF_DELAY, pending_delay=0.5,
                   worker_capacity=16, overshadowed_grace=1e9) as fake:
        session = Recorder(clock)
        for n in range(samples):
            fake.plan_next_task(TaskPlan(duration=60 * minutes * rng.uniform(0.98, 1.02)))
            before = session.count
            spec = {**spec_for(n), "id": f"guide_{n}"}
            session.post(f"{fake.url}/druid/indexer/v1/task", json=spec, timeout=30)
            delay, status_polls = 5.0, 0
            while True:
                state = session.get(f"{fake.url}/druid/indexer/v1/task/guide_{n}/status", timeout=30).json()
                status_polls += 1
                if state["status"]["statusCode"] in ("SUCCESS", "FAILED"):
                    break
                clock.sleep(delay)
                delay = min(delay * 2, 30.0)
            day = spec["spec"]["dataSchema"]["granularitySpec"]["intervals"][0].split("/")[0][:10]
            delay = 5.0
            for _ in range(30):
                listing = session.get(f"{fake.url}/druid/coordinator/v1/datasources/{DS}/segments",
                                      params={"full": "true"}, timeout=30)
                found = listing.json() if listing.status_code == 200 else []
                if any(s.get("interval", "").startswith(day) and s.get("size", 0) > 0 for s in found):
                    break
                clock.sleep(delay)
                delay = min(delay * 2, 30.0)
            counts.append(session.count - before)
            polls.append(status_polls)
            latencies.append(session.ended_at[f"guide_{n}"] - fake.task(f"guide_{n}").finished_at)
    return summarize(counts, latencies, polls)


def run_official(minutes: float, samples: int) -> dict[str, Any] | str:
    python = HERE / ".venv-official" / "bin" / "python"
    if not python.exists():
        return "NOT RUN: benchmarks/.venv-official is missing (run benchmarks/p4_dag_parse.py first, it makes it)"
    extra = HERE / ".p1-official-path"  # this project's fake (and aiohttp) for that venv, without touching it
    core = HERE.parent / "packages" / "druid-ingest"  # the fake lives in the core distribution
    installs = [["--no-deps", str(core)]] + ([] if (extra / "aiohttp").exists() else [["aiohttp"]])
    for args in installs:  # the fake as it is now (a few seconds), aiohttp once
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "--target", str(extra), *args],
                       check=True, capture_output=True, timeout=600)
    done = subprocess.run([str(python), str(HERE / "p1_official.py"), str(minutes), str(samples)],
                          capture_output=True, text=True, timeout=900, env={**os.environ, "PYTHONPATH": str(extra)})
    if done.returncode != 0:
        return f"failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return summarize(data["counts"], data["latencies"], data["polls"])


def summarize(counts: list[int], latencies: list[float], polls: list[int]) -> dict[str, Any]:
    return {"requests": statistics.mean(counts), "status_polls": statistics.mean(polls),
            "latency_p50": percentile(latencies, 50), "latency_p95": percentile(latencies, 95), "n": len(counts)}


def classic(args: argparse.Namespace, info: dict[str, Any]) -> None:
    """The earlier table: no target; ours with and without history, fixed polling at ours' p95, the others."""
    rng = random.Random(7)
    table: dict[str, dict[str, Any]] = {}
    header = f"{'task':>6} {'variant':<20} {'requests':>9} {'status polls':>13} {'lat p50 s':>10} {'lat p95 s':>10}"
    print(header + f" {'x floor':>8}")
    for minutes in args.minutes:
        rows: dict[str, Any] = {}
        rows["ours+history"] = run_ours(minutes, args.samples, True, None, rng)
        rows["ours, no history"] = run_ours(minutes, args.samples, False, None, rng)
        p95 = max(1.0, rows["ours+history"]["latency_p95"])
        rows[f"fixed @ours p95 ({p95:.0f}s)"] = run_ours(minutes, max(3, args.samples // 2), False, p95, rng)
        rows["official provider"] = run_official(minutes, max(3, args.samples // 2))
        rows["guide loop"] = run_guide(minutes, args.samples, rng)
        for name, row in rows.items():
            if isinstance(row, str):
                print(f"{minutes:>4.0f}m {name:<20} {row}")
                continue
            print(f"{minutes:>4.0f}m {name:<20} {row['requests']:>9.1f} {row['status_polls']:>13.1f} "
                  f"{row['latency_p50']:>10.1f} {row['latency_p95']:>10.1f} {row['requests'] / FLOOR:>8.2f}")
        table[f"{minutes:g}m"] = rows
    ten = table.get("10m")
    if ten:
        ours = ten["ours+history"]["requests"]
        fixed = next(v for k, v in ten.items() if k.startswith("fixed"))["requests"]
        print(f"10-minute task: fixed interval at the same p95 / ours+history = {fixed / ours:.1f}x "
              f"(goal >= 10x, at p95 {ten['ours+history']['latency_p95']:.1f} s <= 30 s); "
              f"ours+history / floor = {ours / FLOOR:.2f}x (goal <= 1.5x)")
    write_results("p1_requests_per_ingestion", {"machine": info, "floor": FLOOR, "table": table})


def targets(args: argparse.Namespace, info: dict[str, Any]) -> None:
    """The detection-latency targets: each task length x target, with the goal beside each figure."""
    rng = random.Random(7)
    rows: list[dict[str, Any]] = []
    print(f"{'task':>5} {'T s':>4} {'variant':<26} {'req':>6} {'polls':>6} {'p50 s':>6} {'p95 s':>6} {'<=T':>4} "
          f"{'floor':>5} {'x floor':>7} {'<=1.5':>5} {'official':>8} {'x fewer':>7} {'>=10':>4} {'10x possible':>12}")
    for minutes in args.minutes:
        official = run_official(minutes, args.official_samples)
        if isinstance(official, str):
            print(f"{minutes:>4.0f}m official provider: {official}; using the issue-20 figure")
        else:
            print(f"{minutes:>4.0f}m official provider: {official['requests']:.1f} requests, "
                  f"p95 {official['latency_p95']:.1f} s")
        official_requests = official["requests"] if isinstance(official, dict) else OFFICIAL_BEFORE.get(minutes)
        for target in args.targets:
            for variant, history, kwargs in _variants(minutes, args.every):
                samples = args.samples if history else max(3, args.samples // 4)
                got = run_ours(minutes, samples, history, None, rng, target=target, warmup=args.warmup, **kwargs)
                least = floor(minutes, target, history)
                row = {"minutes": minutes, "target": target, "history": history, "variant": variant, **got,
                       "floor": least, "x_floor": got["requests"] / least, "official": official_requests,
                       "x_fewer": official_requests / got["requests"] if official_requests else None,
                       # no schedule sends fewer than its floor: 10x is out of reach when the floor exceeds this
                       "ten_x_possible": official_requests / 10 >= least if official_requests else None}
                rows.append(row)
                print(_target_line(row))
    write_results("p1_detect_within", {"machine": info, "fixed": FIXED, "spread": SPREAD, "rows": rows})


def _variants(minutes: float, every: float) -> list[tuple[str, bool, dict[str, Any]]]:
    """What each cell runs: the operator's defaults with history (a daily run, Airflow's process per task), a
    first-ever ingestion, and the knobs that win more back where they apply."""
    found: list[tuple[str, bool, dict[str, Any]]] = [("history", True, {"every": every}),
                                                     ("first-ever", False, {"every": every})]
    if minutes == 10:  # a backfill in one process: runs back to back, both caches reused
        found.append(("backfill, one process", True, {"every": 0.0, "worker": "shared"}))
    if minutes >= 60:
        found.append(("history, check_every=None", True, {"every": every, "check_every": None}))
    return found


def _target_line(row: dict[str, Any]) -> str:
    def mark(ok: bool | None) -> str:
        return "-" if ok is None else ("yes" if ok else "NO")

    fewer = row["x_fewer"]
    return (f"{row['minutes']:>4.0f}m {row['target']:>4.0f} {row['variant']:<26} "
            f"{row['requests']:>6.1f} {row['status_polls']:>6.1f} {row['latency_p50']:>6.1f} "
            f"{row['latency_p95']:>6.1f} {mark(row['latency_p95'] <= row['target']):>4} {row['floor']:>5.1f} "
            f"{row['x_floor']:>7.2f} {mark(row['x_floor'] <= 1.5):>5} "
            f"{row['official'] if row['official'] is None else round(row['official'], 1)!s:>8} "
            f"{'-' if fewer is None else f'{fewer:.1f}':>7} {mark(None if fewer is None else fewer >= 10):>4} "
            f"{mark(row['ten_x_possible']):>12}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--minutes", type=float, nargs="+", default=[1, 10, 60])
    parser.add_argument("--targets", type=float, nargs="+", default=[5, 30, 120])
    parser.add_argument("--warmup", type=int, default=20, help="earlier ingestions that make the history")
    parser.add_argument("--official-samples", type=int, default=3)
    parser.add_argument("--every", type=float, default=DAY, help="simulated seconds between two ingestions' starts")
    parser.add_argument("--classic", action="store_true", help="the earlier table, without a target")
    args = parser.parse_args()
    info = machine("apache-airflow")
    print_machine(info)
    if args.classic:
        args.samples = 10 if args.samples == 20 else args.samples
        classic(args, info)
    else:
        targets(args, info)


if __name__ == "__main__":
    main()
