"""P8: end → green of each ingestion, and a backfill's wall time against its ideal, on the real deployment.

Why (issue 31): a task is green only once its data is queryable, so its latency is Druid's task, Druid's handoff,
then ours (the gate seeing the data served, the trigger firing) and Airflow's (resuming the task). This backfills
``--days`` days of ``example_druid_daily`` on a running deployment (``dev/airflow/airflow.sh``; the environment
``airflow.sh env`` prints, so ``AIRFLOW_DEV_VAR_DIR``/ports pick which one) with a fresh ``idempotency_key`` (Druid
really ingests), and breaks each day down:

* Druid's task end: the first moment an observer sees the task complete (the Overlord's task list every 0.5 s);
* served: the first moment the observer's look (the core's served-changes watch, every 0.2 s, the day's window
  from a cursor taken before the backfill) sees the day's new version whole;
* trigger fired: the ``Trigger fired event`` line Airflow's trigger runner writes, with its timestamp, into the
  task instance's trigger log (``$AIRFLOW_HOME/logs/…/attempt=N.log.trigger.*.log``) the moment our trigger
  yields its event;
* scheduled: the task instance's ``scheduled_when`` (Airflow sets it once the triggerer's supervisor has written
  the event to the database);
* green: the task instance's ``end_date``; and before all of it, the task instance's ``start_date`` (the worker
  starts it: parse, pre-flight, input probe, capacity check, submit) to the Druid task's ``createdTime``.

handoff = served - end (Druid's), ours = fired - served (the gate seeing the data and the trigger yielding),
event = scheduled - fired (Airflow's triggerer syncing the event to the database), resume = green - scheduled
(Airflow's), end → green = green - end. The backfill's ideal is what the pool's slots cannot avoid: Σ (Druid
task time + handoff) / concurrent ingestions; its ratio is wall / ideal (goal ≤ 1.15). The observer's own reads
(a few per second) load Druid a little; they are not the product's and are not counted anywhere.

``--rows-per-day N`` backfills a bigger input than the deployment's sample events (``dags/data/generate_events.py``
into ``var/bench-p8-events/<N>``, the ``druid_events_root`` variable pointed there for the run and put back after),
so Druid's task is longer and the fixed costs per ingestion (the worker's start, the trigger's event, the resume)
weigh what they weigh in a real backfill.

    .venv/bin/python benchmarks/p8_end_to_green.py [--first-day 2026-11-10] [--days 14] [--concurrent 2]
        [--max-active-runs N] [--rows-per-day N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import benchlib
import requests
from druid_ingest import ClusterConfig, DruidClient

ROOT = benchlib.ROOT
sys.path.insert(0, str(ROOT / "dev" / "airflow"))
from airflow_rest import AirflowAPI  # noqa: E402

HARNESS = ROOT / "dev" / "airflow" / "airflow.sh"
DAG = "example_druid_daily"
TASK = "ingest_events_web"
DS = "events_web"


def ts(text: str) -> float:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def deploy_env() -> dict[str, str]:
    out = subprocess.run(["bash", "-c", f'eval "$(bash {HARNESS} env)" && env -0'], capture_output=True, check=True)
    return dict(item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item)


def fired_at(airflow_home: str, run_id: str, try_number: int) -> float | None:
    """When the trigger runner logged ``Trigger fired event`` for this try (the last such line of its trigger
    logs: a try deferred more than once fires once per deferral), or None when no trigger log has it."""
    folder = Path(airflow_home) / "logs" / f"dag_id={DAG}" / f"run_id={run_id}" / f"task_id={TASK}"
    fired: float | None = None
    for path in folder.glob(f"attempt={try_number}.log.trigger.*.log"):
        for line in path.read_text(errors="replace").splitlines():
            if '"Trigger fired event"' in line:
                when = ts(json.loads(line)["timestamp"])
                fired = when if fired is None else max(fired, when)
    return fired


def day_window(day: str) -> str:
    start = dt.date.fromisoformat(day)
    return f"{start}/{start + dt.timedelta(days=1)}"


class Observer:
    """Druid's side of the timeline, seen from outside: when each day's task completes, when its data is served."""

    def __init__(self, druid: DruidClient, druid_url: str, days: list[str]) -> None:
        self.druid, self.druid_url, self.days = druid, druid_url, days
        self.window = f"{days[0]}/{dt.date.fromisoformat(days[-1]) + dt.timedelta(days=1)}"
        self.cursor = druid.served_changes(DS, self.window).cursor
        self.served: dict[str, float] = {}
        self.ended: dict[str, tuple[float, float, str]] = {}  # day -> (seen complete, created, task id)
        self.stop = threading.Event()
        self.since = time.time()

    def _look(self) -> None:
        batch = self.druid.served_changes(DS, self.window, self.cursor)
        now = time.time()
        for change in batch.changes:
            if change.kind == "served":
                start, end = (dt.date.fromisoformat(x[:10]) for x in change.interval.split("/"))
                while start < end:
                    self.served.setdefault(start.isoformat(), now)
                    start += dt.timedelta(days=1)
        self.cursor = batch.cursor

    def _tasks(self) -> None:
        done = requests.get(f"{self.druid_url}/druid/indexer/v1/tasks",
                            params={"datasource": DS, "state": "complete", "max": 200}, timeout=30).json()
        now = time.time()
        for t in done:
            if t.get("type") != "index_parallel" or t.get("statusCode") != "SUCCESS":
                continue
            created = ts(t["createdTime"])
            if created < self.since:
                continue
            day = next((d for d in self.days if f"_{d.replace('-', '')}-" in t["id"]), None)
            if day and day not in self.ended:
                self.ended[day] = (now, created, t["id"])

    def run(self) -> None:
        tick = 0
        while not self.stop.is_set():
            try:
                self._look()
                if tick % 3 == 0:
                    self._tasks()
            except Exception as exc:  # a blip: the next look counts
                print(f"  observer: {exc}", file=sys.stderr)
            tick += 1
            self.stop.wait(0.2)


def backfill(api: AirflowAPI, days: list[str], max_active_runs: int, timeout: float) -> dict[str, dict[str, Any]]:
    key = f"p8-{int(time.time())}"
    since = time.time() - 1
    api.send("PATCH", f"/dags/{DAG}", {"is_paused": False})
    made = api.send("POST", "/backfills", {
        "dag_id": DAG, "from_date": f"{days[0]}T00:00:00Z", "to_date": f"{days[-1]}T00:00:00Z",
        "max_active_runs": max_active_runs, "reprocess_behavior": "completed",
        "dag_run_conf": {"idempotency_key": key}})
    deadline = time.monotonic() + timeout
    while True:
        runs = {r["logical_date"][:10]: r for r in api.dag_runs(DAG, run_type="backfill")
                if r["logical_date"][:10] in days and r.get("queued_at") and ts(r["queued_at"]) >= since}
        if len(runs) == len(days) and all(r["state"] in ("success", "failed") for r in runs.values()) \
                and api.get(f"/backfills/{made['id']}").get("completed_at"):
            return runs
        if time.monotonic() > deadline:
            raise RuntimeError(f"backfill not done after {timeout:.0f} s: { {d: r['state'] for d, r in runs.items()} }")
        time.sleep(2)


def bigger_input(api: AirflowAPI, days: list[str], rows_per_day: int, deployment_events: str) -> str | None:
    """Generate ``rows_per_day`` rows for each day and point ``druid_events_root`` there; the value to put back
    (the old one, or ``deployment_events`` when the old one is an earlier run's that was killed before it could)."""
    root = ROOT / "var" / "bench-p8-events" / str(rows_per_day)
    if not all((root / day / "events.json").is_file() for day in days):
        subprocess.run([sys.executable, str(ROOT / "dags" / "data" / "generate_events.py"), "--out", str(root),
                        "--start", days[0], "--days", str(len(days)), "--rows-per-day", str(rows_per_day)],
                       check=True, capture_output=True)
    old: str | None = api.get("/variables/druid_events_root").get("value")
    api.send("PATCH", "/variables/druid_events_root", {"key": "druid_events_root", "value": str(root)})
    print(f"input: {rows_per_day} rows per day in {root} (druid_events_root was {old!r})")
    return deployment_events if old is None or str(root.parent) in old else old


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first-day", default="2026-11-10")
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--concurrent", type=int, default=2, help="ingestions the druid_ingest pool admits")
    parser.add_argument("--max-active-runs", type=int, default=None,
                        help="the backfill's max_active_runs (default: --concurrent; more lets the next run wait "
                             "in the pool, ready the moment a slot frees)")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--rows-per-day", type=int, default=None,
                        help="backfill a generated input of this many rows per day (default: the sample events)")
    args = parser.parse_args()
    env = deploy_env()
    api = AirflowAPI(env["AIRFLOW_DEV_API_URL"], password=env["AIRFLOW_DEV_ADMIN_PASSWORD"])
    druid_url = env.get("DRUID_URL") or "http://127.0.0.1:8888"
    first = dt.date.fromisoformat(args.first_day)
    days = [(first + dt.timedelta(days=i)).isoformat() for i in range(args.days)]
    if dt.date.fromisoformat(days[-1]) >= dt.datetime.now(dt.timezone.utc).date():
        parser.error(f"--first-day/--days: the last day {days[-1]} is not over yet (UTC), so the backfill makes no "
                     "run for it and the benchmark would wait for it until --timeout; end before today")
    benchlib.print_machine(benchlib.machine("apache-airflow", "druid-ingest"))
    old_root = bigger_input(api, days, args.rows_per_day, env["AIRFLOW_DEV_EVENTS_DIR"]) if args.rows_per_day else None
    try:
        runs, observer, started = observed_backfill(api, druid_url, days, args)
    finally:
        if args.rows_per_day and old_root is not None:
            api.send("PATCH", "/variables/druid_events_root", {"key": "druid_events_root", "value": old_root})
    report(api, env["AIRFLOW_HOME"], days, runs, observer, started, args)


def observed_backfill(api: AirflowAPI, druid_url: str, days: list[str],
                      args: argparse.Namespace) -> tuple[dict[str, dict[str, Any]], Observer, float]:
    """The backfill, with the observer noting Druid's side of each day."""
    with DruidClient(ClusterConfig(url=druid_url, read_timeout=60)) as druid:
        observer = Observer(druid, druid_url, days)
        thread = threading.Thread(target=observer.run, daemon=True)
        thread.start()
        started = time.time()
        runs = backfill(api, days, args.max_active_runs or args.concurrent, args.timeout)
        time.sleep(1)
        observer.stop.set()
        thread.join(10)
    return runs, observer, started


def report(api: AirflowAPI, airflow_home: str, days: list[str], runs: dict[str, dict[str, Any]],
           observer: Observer, started: float, args: argparse.Namespace) -> None:
    """Each day's breakdown, the percentiles, the goals and the backfill's ratio."""
    rows: list[dict[str, Any]] = []
    parts: dict[str, list[float]] = {"before": [], "task": [], "handoff": [], "ours": [], "event": [],
                                     "resume": [], "end_green": [], "slot": []}
    for day in days:
        run = runs[day]
        ti = api.get(f"/dags/{DAG}/dagRuns/{quote(run['dag_run_id'], safe='')}/taskInstances/{TASK}")
        fired = fired_at(airflow_home, run["dag_run_id"], ti["try_number"])
        if day not in observer.ended or day not in observer.served or not ti.get("scheduled_when") or fired is None:
            rows.append({"day": day, "state": run["state"], "note": "not seen whole (observer, Airflow or its log)"})
            continue
        ended, created, _ = observer.ended[day]
        served, scheduled, green = observer.served[day], ts(ti["scheduled_when"]), ts(ti["end_date"])
        row = {"day": day, "state": run["state"], "before_s": created - ts(ti["start_date"]),
               "druid_task_s": ended - created, "handoff_s": served - ended,
               "ours_s": fired - served, "event_s": scheduled - fired, "resume_s": green - scheduled,
               "end_to_green_s": green - ended, "slot_s": green - ts(ti["start_date"])}
        rows.append(row)
        for name, key in (("before", "before_s"), ("task", "druid_task_s"), ("handoff", "handoff_s"),
                          ("ours", "ours_s"), ("event", "event_s"), ("resume", "resume_s"),
                          ("end_green", "end_to_green_s"), ("slot", "slot_s")):
            parts[name].append(row[key])
    benchlib.print_table([("day", "day"), ("state", "state"), ("before_s", "start→submit s"),
                          ("druid_task_s", "Druid task s"),
                          ("handoff_s", "handoff s"), ("ours_s", "ours s"), ("event_s", "event s"),
                          ("resume_s", "resume s"),
                          ("end_to_green_s", "end→green s"), ("slot_s", "pool slot s")], rows)
    wall = max(ts(r["end_date"]) for r in runs.values()) - started
    ideal = (sum(parts["task"]) + sum(parts["handoff"])) / args.concurrent
    print()
    for name in ("before", "handoff", "ours", "event", "resume", "end_green"):
        if parts[name]:
            print(f"{name:>10}: p50 {statistics.median(parts[name]):5.1f} s   p95 {pct(parts[name], 95):5.1f} s   "
                  f"max {max(parts[name]):5.1f} s")
    if parts["ours"]:
        within = sum(1 for g, h in zip(parts["end_green"], parts["handoff"], strict=True) if g <= h + 3)
        print(f"goal: ours ≤ 2 s p95 -> {pct(parts['ours'], 95):.1f} s; end→green ≤ handoff + 3 s -> "
              f"{within}/{len(parts['ours'])} days")
    print(f"backfill (max_active_runs {args.max_active_runs or args.concurrent}): "
          f"wall {wall:.1f} s, ideal {ideal:.1f} s (Σ Druid task + handoff / {args.concurrent}), "
          f"ratio {wall / ideal:.2f}x (goal ≤ 1.15x); pool slot-seconds {sum(parts['slot']):.0f} vs the "
          f"{args.concurrent} slots' {wall * args.concurrent:.0f} (idle or on our own steps: "
          f"{wall * args.concurrent - sum(parts['slot']):.0f})")
    benchlib.write_results("p8_end_to_green", {"days": rows, "wall_s": wall, "ideal_s": ideal,
                                               "concurrent": args.concurrent, "rows_per_day": args.rows_per_day})


if __name__ == "__main__":
    main()
