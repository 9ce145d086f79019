"""P1: HTTP requests per ingestion and detection latency, for 1-, 10- and 60-minute Druid tasks.

Everything runs against the fake Druid over real HTTP, on a *simulated* clock shared by the fake and the client:
a sleep advances the clock instead of waiting, so an hour of polling takes seconds and the numbers do not depend
on the machine. Task durations vary by +-2 % around the nominal one (seeded). Variants:

* ``ours+history``: ``DruidClient.ingest`` after five earlier ingestions of the datasource (the predicted
  schedule from Druid's task history, and the usual handoff delay this process saw);
* ``ours, no history``: the same with the caches cleared before every ingestion (fixed 5 s x1.5 -> 60 s);
* ``fixed @ours p95``: our client with a fixed poll interval equal to ours+history's p95 detection latency;
* ``official provider``: ``apache-airflow-providers-apache-druid``'s ``DruidHook.submit_indexing_job`` (it polls
  status every second from the worker and has no handoff gate), run in ``benchmarks/.venv-official`` (made by
  ``p4_dag_parse.py``) by ``p1_official.py``;
* ``guide loop``: the common tutorial helper: status every 5 s doubling to 30 s, then a handoff check listing every
  segment of the datasource, 5 s doubling to 30 s.

Detection latency = the simulated time from the fake's task end to the client's first answer saying so. The
floor is what an oracle that knows the end would send: the id probe and the submit, one terminal status, one
report, one gate check (metadata, served ids, Broker) = 7 requests.

    .venv/bin/python benchmarks/p1_requests_per_ingestion.py [--samples 10] [--minutes 1 10 60]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import requests
from druid_ingest import ClusterConfig, DruidClient, PollSchedule, RetryPolicy, build_plan
from druid_ingest.ops._history import CACHE, HANDOFF_LATENCIES, percentile
from druid_ingest.testing import FakeDruid, TaskPlan

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import machine, print_machine, write_results  # noqa: E402

DS = "p1_events"
FLOOR = 7
HANDOFF_DELAY = 8.0
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.5, max_delay=2, deadline=60, jitter=False)


class SimClock:
    """The shared simulated clock (epoch seconds): the fake reads it, the client's sleeps advance it."""

    def __init__(self) -> None:
        self.t = 1_790_000_000.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)


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


def spec_for(day: int) -> dict[str, Any]:
    """The example spec for day ``day`` after 2025-01-01 (one interval each, so tasks never share a lock)."""
    template = json.loads((HERE.parent / "dags/specs/events_web.json").read_text())
    first = dt.date(2025, 1, 1) + dt.timedelta(days=day)
    interval = f"{first}T00:00:00Z/{first + dt.timedelta(days=1)}T00:00:00Z"
    return build_plan(template, datasource=DS, intervals=[interval], input_locations=[f"/data/{day}"]).spec


def run_ours(minutes: float, samples: int, history: bool, fixed: float | None, rng: random.Random) -> dict[str, Any]:
    clock = SimClock()
    CACHE.clear()
    HANDOFF_LATENCIES.clear()
    with FakeDruid(clock=clock.now, task_duration=60 * minutes, handoff_delay=HANDOFF_DELAY, pending_delay=0.5,
                   worker_capacity=16, overshadowed_grace=1e9) as fake:
        session = Recorder(clock)
        client = DruidClient(ClusterConfig(url=fake.url), RETRY, session, clock=clock.now, sleep=clock.sleep)
        schedule = PollSchedule(fixed, fixed, 1.0) if fixed else PollSchedule(5.0, 60.0, 1.5)
        counts, latencies, polls = [], [], []
        for n in range(samples + (5 if history else 0)):
            if not history:
                CACHE.clear()
                HANDOFF_LATENCIES.clear()
            fake.plan_next_task(TaskPlan(duration=60 * minutes * rng.uniform(0.98, 1.02)))
            before = session.count
            fake.clear_requests()
            result = client.ingest(build_plan(spec_for(n)), task_timeout=6 * 3600, handoff_timeout=3600,
                                   schedule=schedule) if fixed is None else _fixed(client, spec_for(n), schedule)
            task = fake.task(result.submit.task_id)
            if history and n < 5:
                if n == 4:
                    CACHE.clear()  # the warm-up took seconds of real time: forget its "no history yet" answers
                continue  # the warm-up that builds the history
            counts.append(session.count - before)
            polls.append(len([r for r in fake.requests if r.path.endswith("/status") or r.path.endswith("taskStatus")]))
            latencies.append(session.ended_at[task.id] - task.finished_at)
        client.close()
    return summarize(counts, latencies, polls)


def _fixed(client: DruidClient, spec: dict[str, Any], schedule: PollSchedule) -> Any:
    """Our client polling at one fixed interval, no prediction (the same gate at the end)."""
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
    installs = [["--no-deps", str(HERE.parent)]] + ([] if (extra / "aiohttp").exists() else [["aiohttp"]])
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--minutes", type=float, nargs="+", default=[1, 10, 60])
    args = parser.parse_args()
    rng = random.Random(7)
    table: dict[str, dict[str, Any]] = {}
    info = machine("apache-airflow")
    print_machine(info)
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


if __name__ == "__main__":
    main()
