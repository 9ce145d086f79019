"""P7: the served-data watch (``DruidServedTrigger``) beside a fixed-schedule sensor: detection latency and requests.

What is measured, in one run, on one sequence of changes, against one fake Druid over real HTTP:

* **Ours**: ``DruidServedTrigger`` (an ``AssetWatcher`` trigger) driven by Airflow's own ``SharedStreamManager`` in
  ack mode, as the triggerer drives it; each emitted event is confirmed stored 50 ms later. The one stand-in is the
  supervisor channel the asset state store speaks through (``SUPERVISOR_COMMS``): a dict (``StateStoreChannel``,
  as tests/airflow/triggers/test_served_trigger.py does). One watcher per cadence E, each on its own Asset.
* **Sensor**: the usual alternative, a DAG on a fixed schedule whose sensor asks Druid once per tick whether a
  version newer than the last seen is served. Its honest single request: the fake Broker's SQL answers only
  literal SELECTs (``fake_sql.py``), not ``sys.segments``, so the sensor sends the Coordinator read carrying the
  same facts, ``GET /druid/coordinator/v1/datasources/{ds}/segments`` (the ids of every served segment; each id
  holds its version), and keeps the newest version seen (the DAG's Variable). Ticks on a fixed wall-clock grid.
* **Changes**: ingestions of distinct days through the core client (``DruidClient.ingest``, a daily replace), at
  random times, plus one replace of a day already served and one compaction (DAY -> MONTH) of the first month.
* **Served moment**: an observer thread reads the fake's state in-process every 5 ms (no HTTP, so it costs no
  counted request) and takes, for each version, the instant its last segment was loaded (``FakeSegment.served_at``,
  the fake's own replay time; the observer's first sight is kept as a check). A version counts once every used
  segment of it is served, the watch's own rule.
* **Latency**: served moment -> the trigger *emits* the ``TriggerEvent`` carrying that version (ours), or the tick
  whose answer first lists it (sensor). Airflow's event -> DAG run (ours) and DAG run start -> sensor task start
  (the sensor) are on top of both and not measured here.
* **Requests**: every request the fake received from each watcher and sensor (told apart by their basic-auth
  user), by path, per unscaled minute: in a quiet phase (no change) and in the change phase.

Time is scaled (``--scale 0.05``: a 60 s cadence runs every 3 s); latencies are reported in unscaled seconds
(measured / scale). The HTTP time of a look (milliseconds) is then inflated by 1/scale too; it is printed apart.

    .venv/bin/python benchmarks/p7_watch.py [--scale 0.05] [--changes 22] [--cadences 60 300] [--span 7200]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime as dt
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import ROOT, machine, print_machine, print_table, write_results  # noqa: E402

sys.path.insert(0, str(ROOT / "dev" / "airflow"))

# A throwaway AIRFLOW_HOME, set before Airflow is imported (no database is used: connections come from the
# environment, the asset state store from the dict below).
os.environ.setdefault("AIRFLOW_HOME", tempfile.mkdtemp(prefix="p7-airflow-"))
os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
os.environ.setdefault("AIRFLOW__LOGGING__LOGGING_LEVEL", "WARNING")  # not the trigger's info line per event

import requests  # noqa: E402
from airflow.sdk import Asset  # noqa: E402
from airflow.sdk.execution_time import task_runner  # noqa: E402
from airflow.sdk.execution_time.context import AssetStateStoreAccessors  # noqa: E402
from airflow.triggers.shared_stream import SharedStreamManager  # noqa: E402
from druid_ingest import ClusterConfig, DruidClient, PollSchedule, RetryPolicy, build_plan  # noqa: E402
from druid_ingest.ops import WATCH_EVERY  # noqa: E402
from druid_ingest.ops._history import percentile  # noqa: E402
from druid_ingest.planning import build_compaction_plan  # noqa: E402
from druid_ingest.testing import FakeDruid  # noqa: E402
from state_store_channel import StateStoreChannel  # noqa: E402

from airflow_provider_druid_ingest.triggers.served import DruidServedTrigger  # noqa: E402

DS = "p7_events"
PASSWORD = "p7-Pa55word"
SENSOR_DEFAULT = 300.0  # the usual fixed schedule of a "has new data landed?" DAG: every 5 minutes
FIRST_DAY = dt.date(2026, 10, 1)  # the baseline day, served before any watcher starts
MONTH = "2026-10-01T00:00:00.000Z/2026-11-01T00:00:00.000Z"  # what the compaction rewrites (DAY -> MONTH)
SERVED_IDS = f"/druid/coordinator/v1/datasources/{DS}/intervals/"
METADATA = f"/druid/coordinator/v1/metadata/datasources/{DS}/segments"
SENSOR_READ = f"/druid/coordinator/v1/datasources/{DS}/segments"
FAST = PollSchedule(0.2, 1.0, 1.5)  # the ingestions' own waits (their requests are not counted)
RETRY = RetryPolicy(max_attempts=5, initial_delay=0.2, max_delay=1.0, deadline=60, jitter=False)


# ------------------------------------------------------------------------------------------------ changes
@dataclass
class Change:
    """One change of what Druid serves, made at ``at`` (real epoch seconds) through the core client."""

    n: int
    kind: str  # "ingestion", "replace", "compaction"
    at: float
    interval: str
    version: str | None = None
    started: float | None = None
    served: float | None = None  # the fake's instant its last segment loaded
    observed: float | None = None  # the observer's first sight (a check on ``served``)
    error: str | None = None


def day_interval(day: dt.date) -> str:
    return f"{day}T00:00:00.000Z/{day + dt.timedelta(days=1)}T00:00:00.000Z"


def day_spec(day: dt.date, source: str) -> Any:
    """The example spec (dags/specs/events_web.json) for one day, DAY segments (one segment per change)."""
    template = json.loads((ROOT / "dags/specs/events_web.json").read_text())
    template["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = "DAY"
    return build_plan(template, datasource=DS, intervals=[day_interval(day).replace(".000", "")],
                      input_locations=[source])


def core_client(url: str) -> DruidClient:
    return DruidClient(ClusterConfig(url=url, username="ingest", password=PASSWORD), RETRY)


def make(change: Change, url: str) -> None:
    """Run one change through the core client (a fresh client each, as a task process would)."""
    change.started = time.time()
    try:
        with core_client(url) as client:
            if change.kind == "compaction":
                plan: Any = build_compaction_plan(DS, MONTH, segment_granularity="MONTH")
            else:
                day = dt.date.fromisoformat(change.interval[:10])
                plan = day_spec(day, f"/data/{day}/{change.kind}-{change.n}")
            result = client.ingest(plan, task_timeout=120, handoff_timeout=120, schedule=FAST)
        change.version = result.handoff.version
    except Exception as exc:  # reported in the output, never hidden
        change.error = f"{type(exc).__name__}: {exc}"


def plan_changes(n_ingest: int, span: float, scale: float, start: float, rng: random.Random) -> list[Change]:
    """``n_ingest`` ingestions of distinct days at uniform random times over ``span`` unscaled seconds, plus a
    replace of a day already served and the compaction of its month, in random slots after that month's days."""
    times = sorted(start + rng.uniform(0, span) * scale for _ in range(n_ingest + 2))
    october = n_ingest // 2  # days 2..october+1 of October first, then November
    slots = list(range(october + 1, n_ingest + 2))
    replace_slot, compaction_slot = sorted(rng.sample(slots, 2))
    changes: list[Change] = []
    day_n = 0
    for n, at in enumerate(times):
        if n == replace_slot:
            day = FIRST_DAY + dt.timedelta(days=1 + rng.randrange(october))
            changes.append(Change(n, "replace", at, day_interval(day)))
        elif n == compaction_slot:
            changes.append(Change(n, "compaction", at, MONTH))
        else:
            day = FIRST_DAY + dt.timedelta(days=1 + day_n) if day_n < october else \
                dt.date(2026, 11, 1) + dt.timedelta(days=day_n - october)
            day_n += 1
            changes.append(Change(n, "ingestion", at, day_interval(day)))
    return changes


def run_changes(changes: list[Change], url: str, stop: threading.Event) -> list[threading.Thread]:
    """One thread per change, each starting at its time; a replace or compaction of October waits until every
    earlier change of October is done (they share its time chunks' locks), then starts at its time."""
    threads: list[threading.Thread] = []

    def one(change: Change, before: list[threading.Thread]) -> None:
        for thread in before:
            thread.join()
        if stop.wait(max(0.0, change.at - time.time())):
            return
        make(change, url)

    for change in changes:
        before = [] if change.kind == "ingestion" else [
            t for t, c in zip(threads, changes, strict=False) if c.interval[:7] == "2026-10" or c.kind != "ingestion"]
        thread = threading.Thread(target=one, args=(change, before), name=f"change-{change.n}", daemon=True)
        thread.start()
        threads.append(thread)
    return threads


def observe(fake: FakeDruid, versions: dict[str, dict[str, float]], stop: threading.Event) -> None:
    """Every 5 ms, in-process: for each version whose used segments are all served, the instant the last one
    loaded (the fake's replay time) and when this observer first saw it so."""
    state = fake.state
    while not stop.wait(0.005):
        with state.lock:
            state.now()
            mine = [s for s in state.segments if s.datasource == DS and s.used]
            by_version: dict[str, list[Any]] = {}
            for seg in mine:
                by_version.setdefault(seg.version, []).append(seg)
        now = time.time()
        for version, segs in by_version.items():
            if version not in versions and all(s.served_at is not None for s in segs):
                versions[version] = {"served": max(s.served_at for s in segs), "observed": now}


# ------------------------------------------------------------------------------------------------- ours
@dataclass
class Watcher:
    """One ``DruidServedTrigger`` at cadence ``every`` (unscaled), run as the triggerer runs it."""

    every: float
    scale: float
    events: list[tuple[float, dict[str, Any]]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"ours_{self.every:g}"

    def trigger(self) -> DruidServedTrigger:
        trigger = DruidServedTrigger(datasource=DS, asset=self.name, conn_id=self.name,
                                     poll_interval=self.every * self.scale, from_now=True)
        trigger.asset_state_store = AssetStateStoreAccessors(inlets=[Asset(name=self.name)])
        return trigger

    async def run(self, stop: asyncio.Event) -> None:
        trigger = self.trigger()
        manager = SharedStreamManager(ack_timeout=60)
        key = trigger.shared_stream_key()
        stream = manager.subscribe(trigger_id=1, trigger=trigger, key=key)
        loop = asyncio.get_running_loop()

        async def consume() -> None:
            async for event in trigger.filter_shared_stream(stream):
                self.events.append((time.time(), event.payload))  # the instant the trigger emitted it
                seq = manager.bind_pending_event(trigger_id=1, key=key)
                if seq is not None:  # Airflow stored it: confirmed a state sync later
                    loop.call_later(0.05, manager.confirm_persisted, [seq])

        task = asyncio.create_task(consume())
        try:
            await stop.wait()
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await manager.unsubscribe(1, key)
            await manager.stop_all()


# ----------------------------------------------------------------------------------------------- sensor
@dataclass
class Sensor:
    """A DAG every ``every`` (unscaled) seconds whose sensor asks once per tick for versions newer than the last
    seen: one Coordinator read of the served segment ids; the newest version seen kept between runs."""

    every: float
    scale: float
    url: str
    t0: float
    noticed: list[tuple[float, list[str]]] = field(default_factory=list)
    ticks: list[float] = field(default_factory=list)  # each tick's start: one DAG run each

    @property
    def name(self) -> str:
        return f"sensor_{self.every:g}"

    def run(self, stop: threading.Event) -> None:
        session = requests.Session()
        session.auth = (self.name, PASSWORD)
        last: str | None = None  # the DAG's Variable: the newest version seen
        k = 0
        while not stop.wait(max(0.0, self.t0 + k * self.every * self.scale - time.time())):
            k += 1
            self.ticks.append(time.time())
            resp = session.get(f"{self.url}{SENSOR_READ}", timeout=30)
            served = resp.json() if resp.status_code == 200 else []
            versions = {segment_version(i) for i in served}
            now = time.time()
            if last is None:
                last = max(versions, default="")
                continue
            new = sorted(v for v in versions if v > last)
            if new:
                self.noticed.append((now, new))
                last = new[-1]
        session.close()


def segment_version(segment_id: str) -> str:
    """``{ds}_{start}_{end}_{version}[_{partition}]`` -> version (ISO instants hold no underscore)."""
    return segment_id[len(DS) + 1:].split("_")[2]


# ------------------------------------------------------------------------------------------- accounting
def user_of(headers: dict[str, str]) -> str:
    auth = headers.get("Authorization", "")
    if not auth.startswith("Basic "):
        return "?"
    return base64.b64decode(auth[6:]).decode().split(":", 1)[0]


def path_kind(method: str, path: str) -> str:
    if path.startswith(SERVED_IDS):
        return "served ids"
    if method == "POST" and path.startswith(METADATA):
        return "metadata"
    if path == SENSOR_READ:
        return "served listing"
    return f"{method} {path}"


def requests_per_minute(fake: FakeDruid, who: str, start: float, end: float, scale: float) -> tuple[float,
                                                                                                      Counter[str]]:
    kinds: Counter[str] = Counter(path_kind(r.method, r.path) for r in fake.requests
                                  if start <= r.time < end and user_of(r.headers) == who)
    minutes = (end - start) / scale / 60
    return sum(kinds.values()) / minutes, kinds


def latencies(changes: list[Change], seen: dict[str, float], scale: float) -> tuple[list[float], list[Change]]:
    """Unscaled seconds from each change's served moment to its first sighting; the changes never seen."""
    got, missed = [], []
    for change in changes:
        if change.version is None or change.served is None:
            continue
        if change.version in seen:
            got.append((seen[change.version] - change.served) / scale)
        else:
            missed.append(change)
    return got, missed


def look_times(fake: FakeDruid, who: str, changes: list[Change], seen: dict[str, float]) -> list[float]:
    """Real milliseconds from the watcher's first request after each served moment to its sighting (the look's
    own HTTP and processing time, inflated by 1/scale in the unscaled latency)."""
    mine = sorted(r.time for r in fake.requests if user_of(r.headers) == who)
    out = []
    for change in changes:
        if change.version in seen and change.served is not None:
            first = next((t for t in mine if t >= change.served), None)
            if first is not None and first <= seen[change.version]:
                out.append((seen[change.version] - first) * 1000)
    return out


# ----------------------------------------------------------------------------------------------- driver
def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scale", type=float, default=0.05, help="real seconds per unscaled second")
    parser.add_argument("--changes", type=int, default=22, help="ingestions of distinct days (plus a replace and "
                        "a compaction)")
    parser.add_argument("--cadences", type=float, nargs="+", default=[WATCH_EVERY, SENSOR_DEFAULT],
                        help="unscaled seconds: one watcher and one sensor at each")
    parser.add_argument("--span", type=float, default=7200.0, help="unscaled seconds over which changes start")
    parser.add_argument("--quiet", type=float, default=1200.0, help="unscaled seconds of the quiet phase")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if min(args.cadences) * args.scale < 1:
        parser.error("DruidServedTrigger's poll_interval is at least 1 s: raise --scale or the cadences")
    info = machine("apache-airflow-core", "apache-airflow-task-sdk", "aiohttp")
    print_machine(info)
    rng = random.Random(args.seed)
    scale = args.scale
    users = {"ingest": (PASSWORD, "write")}
    users.update({f"{who}_{e:g}": (PASSWORD, "read") for e in args.cadences for who in ("ours", "sensor")})
    channel = StateStoreChannel()
    task_runner.SUPERVISOR_COMMS = channel  # type: ignore[attr-defined]
    with FakeDruid(task_duration=0.5, handoff_delay=0.5, pending_delay=0.05, worker_capacity=8,
                   overshadowed_grace=0, auth=users) as fake:
        for e in args.cadences:
            os.environ[f"AIRFLOW_CONN_OURS_{e:g}".upper()] = json.dumps(
                {"conn_type": "druid_cluster", "host": fake.url, "login": f"ours_{e:g}", "password": PASSWORD})
        baseline = Change(-1, "ingestion", time.time(), day_interval(FIRST_DAY))
        make(baseline, fake.url)  # the datasource exists before anyone watches
        if baseline.error:
            raise SystemExit(f"baseline ingestion failed: {baseline.error}")
        versions: dict[str, dict[str, float]] = {}
        stop_threads = threading.Event()
        observer = threading.Thread(target=observe, args=(fake, versions, stop_threads), daemon=True)
        observer.start()
        t0 = time.time()
        watchers = [Watcher(e, scale) for e in args.cadences]
        sensors = [Sensor(e, scale, fake.url, t0) for e in args.cadences]
        sensor_threads = [threading.Thread(target=s.run, args=(stop_threads,), daemon=True) for s in sensors]
        quiet_start = t0 + 0.5 * min(args.cadences) * scale  # after every first look (the baseline)
        quiet_end = quiet_start + args.quiet * scale
        changes = plan_changes(args.changes, args.span, scale, quiet_end, rng)
        tail = 2 * max(args.cadences)  # time to see the last change at the slowest cadence
        change_end = quiet_end + (args.span + tail) * scale
        print(f"scale {scale:g}: quiet {args.quiet:g} s, {len(changes)} changes over {args.span:g} s, "
              f"+{tail:g} s tail (unscaled); about {(change_end - t0) / 60:.1f} real minutes", flush=True)

        async def drive() -> None:
            stop = asyncio.Event()
            runs = [asyncio.create_task(w.run(stop)) for w in watchers]
            for thread in sensor_threads:
                thread.start()
            change_threads = await asyncio.to_thread(lambda: run_changes(changes, fake.url, stop_threads))
            await asyncio.sleep(max(0.0, change_end - time.time()))
            stop.set()
            await asyncio.gather(*runs)
            stop_threads.set()
            for thread in [*sensor_threads, *change_threads]:
                await asyncio.to_thread(thread.join, 30)

        asyncio.run(drive())
        observer.join(5)
        for change in changes:
            if change.version in versions:
                change.served = versions[change.version]["served"]
                change.observed = versions[change.version]["observed"]
        report(args, info, fake, changes, watchers, sensors, (quiet_start, quiet_end, change_end))


def report(args: argparse.Namespace, info: dict[str, Any], fake: FakeDruid, changes: list[Change],
           watchers: list[Watcher], sensors: list[Sensor], phases: tuple[float, float, float]) -> None:
    scale = args.scale
    quiet_start, quiet_end, change_end = phases
    failed = [c for c in changes if c.error or c.served is None]
    for change in failed:
        print(f"change {change.n} ({change.kind} {change.interval[:10]}) not measured: {change.error or 'not served'}")
    measured = [c for c in changes if c not in failed]
    rows: list[dict[str, Any]] = []
    for variant in [*watchers, *sensors]:
        seen: dict[str, float] = {}
        if isinstance(variant, Watcher):
            for at, payload in variant.events:
                for item in payload["changes"]:
                    seen.setdefault(item["version"], at)
            runs = sum(quiet_end <= at < change_end for at, _ in variant.events)  # one DAG run per event
            label = "ours (DruidServedTrigger)"
        else:
            for at, new in variant.noticed:
                for version in new:
                    seen.setdefault(version, at)
            runs, label = sum(quiet_end <= t < change_end for t in variant.ticks), "fixed-schedule sensor"
        got, missed = latencies(measured, seen, scale)
        looks = look_times(fake, variant.name, measured, seen)
        quiet, _ = requests_per_minute(fake, variant.name, quiet_start, quiet_end, scale)
        busy, kinds = requests_per_minute(fake, variant.name, quiet_end, change_end, scale)
        by_kind = {c.kind: round((seen[c.version] - c.served) / scale, 1) for c in measured
                   if c.kind != "ingestion" and c.version in seen and c.served is not None}
        p95 = percentile(got, 95) if got else None
        claim = variant.every + max(looks, default=0.0) / 1000 / scale
        rows.append({
            "variant": label, "every": variant.every, "seen": len(got), "missed": len(missed),
            "p50": percentile(got, 50) if got else None, "p95": p95, "max": max(got, default=None),
            "claim": f"{'yes' if p95 is not None and p95 <= claim else 'NO'} (<= {claim:.1f})",
            "quiet_rpm": round(quiet, 2), "busy_rpm": round(busy, 2),
            "paths": ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
            "look_ms_p50": round(percentile(looks, 50), 1) if looks else None,
            "dag_runs": runs, "replace_compaction_s": by_kind, "latencies": [round(x, 2) for x in got],
            "missed_versions": [f"{c.kind} {c.interval[:10]}" for c in missed],
        })
    hours = (change_end - quiet_end) / scale / 3600
    print(f"\n{len(measured)} changes measured ({Counter(c.kind for c in measured)}); change phase "
          f"{hours * 60:.0f} unscaled minutes; latencies and per-minute rates in unscaled time (scale {scale:g})")
    print_table([("variant", "variant"), ("every", "every s"), ("seen", "seen"), ("missed", "missed"),
                 ("p50", "p50 s"), ("p95", "p95 s"), ("max", "max s"), ("claim", "p95 <= every + look"),
                 ("quiet_rpm", "req/min quiet"), ("busy_rpm", "req/min changes"), ("look_ms_p50", "look ms p50"),
                 ("dag_runs", "DAG runs")], rows)
    print()
    for row in rows:
        print(f"{row['variant']} every {row['every']:g} s: change-phase requests by path: {row['paths']}; "
              f"replace/compaction latency s: {row['replace_compaction_s']}"
              + (f"; never seen: {row['missed_versions']}" if row["missed_versions"] else ""))
    ours = {r["every"]: r for r in rows if r["variant"].startswith("ours")}
    sens = {r["every"]: r for r in rows if r["variant"].startswith("fixed")}
    print()
    for every in args.cadences:
        a, b = ours[every], sens[every]
        if a["p95"] and b["p95"]:
            print(f"equal budget, every {every:g} s: p95 ours {a['p95']:.1f} s vs sensor {b['p95']:.1f} s "
                  f"({b['p95'] / a['p95']:.2f}x); requests/min with changes ours {a['busy_rpm']} vs sensor "
                  f"{b['busy_rpm']} ({a['busy_rpm'] / max(b['busy_rpm'], 1e-9):.2f}x)")
    if WATCH_EVERY in ours and SENSOR_DEFAULT in sens and ours[WATCH_EVERY]["p95"] and sens[SENSOR_DEFAULT]["p95"]:
        a, b = ours[WATCH_EVERY], sens[SENSOR_DEFAULT]
        print(f"defaults, ours every {WATCH_EVERY:g} s vs a {SENSOR_DEFAULT / 60:g}-minute schedule: p95 "
              f"{a['p95']:.1f} s vs {b['p95']:.1f} s ({b['p95'] / a['p95']:.1f}x sooner) at "
              f"{a['busy_rpm'] / max(b['busy_rpm'], 1e-9):.1f}x the requests ({a['busy_rpm']} vs {b['busy_rpm']}/min)")
    drift = [abs(c.observed - c.served) * 1000 for c in measured if c.observed is not None and c.served is not None]
    print(f"observer: first sight within {max(drift, default=0):.0f} ms of the fake's load instant (max)")
    write_results("p7_watch", {"machine": info, "args": vars(args), "rows": rows,
                               "changes": [{k: v for k, v in c.__dict__.items()} for c in changes]})


if __name__ == "__main__":
    main()
