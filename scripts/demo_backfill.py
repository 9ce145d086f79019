"""The main job's Airflow half: backfill days of ``example_druid_daily`` on the running deployment, show progress,
then print per day the run state, the Druid task and its duration, and Druid SQL counts beside the generator's.

Runs in the environment of ``dev/airflow/airflow.sh env``; ``scripts/demo.sh`` calls it. Exits non-zero when a run
did not succeed or a day's counts differ.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "dev" / "airflow"))

from airflow_rest import AirflowAPI  # noqa: E402
from druid_ingest import ClusterConfig, DruidClient  # noqa: E402

DAG_ID = "example_druid_daily"
INGEST = "ingest_events_web"
AIRFLOW = str(Path(sys.executable).with_name("airflow"))
TERMINAL = {"success", "failed"}


def airflow_cli(*args: str) -> str:
    proc = subprocess.run([AIRFLOW, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"demo: `airflow {' '.join(args)}` failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return proc.stdout


def expected_counts(events: str, days: list[str]) -> dict[str, dict]:
    out = subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", events,
                          "--start", days[0], "--days", str(len(days)), "--expect"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def day_counts(druid: DruidClient, day: str) -> dict:
    ts = {"type": "TIMESTAMP", "value": f"{day} 00:00:00"}
    rows = druid.sql('SELECT COUNT(*) AS "rollup_rows", SUM("rows") AS "rows", SUM("bytes") AS "sum_resp_bytes" '
                     "FROM \"events_web\" WHERE __time >= ? AND __time < ? + INTERVAL '1' DAY", [ts, ts])
    return rows[0] if rows else {}


def backfill_runs(api: AirflowAPI, days: list[str], since: str) -> dict[str, dict]:
    """day -> the newest backfill run of that logical date queued after ``since``."""
    runs = {}
    for run in api.dag_runs(DAG_ID, run_type="backfill"):
        day = run["logical_date"][:10]
        if day in days and (run.get("queued_at") or "") >= since:
            runs[day] = run
    return runs


def druid_state(druid: DruidClient, task_id: str | None) -> str:
    if not task_id:
        return "-"
    status = druid.status(task_id)
    return status.state


def watch(api: AirflowAPI, druid: DruidClient, days: list[str], since: str, timeout: float) -> dict[str, dict]:
    """Print a progress line whenever a run, its ingest task or its Druid task changes state."""
    start, last = time.monotonic(), ""
    while True:
        runs = backfill_runs(api, days, since)
        parts, done = [], len(runs) == len(days)
        for day in days:
            run = runs.get(day)
            if not run:
                parts.append(f"{day[5:]} -")
                done = False
                continue
            tis = api.task_instances(DAG_ID, run["dag_run_id"])
            ingest = (tis.get(INGEST) or {}).get("state") or "none"
            task_id = api.xcom(DAG_ID, run["dag_run_id"], INGEST, "druid_task_id")
            run["druid_task_id"] = task_id
            parts.append(f"{day[5:]} {run['state']}/{ingest}/druid:{druid_state(druid, task_id)}")
            done = done and run["state"] in TERMINAL
        line = " | ".join(parts)
        if line != last:
            print(f"  [{time.monotonic() - start:5.0f}s] {line}", flush=True)
            last = line
        if done:
            return runs
        if time.monotonic() - start > timeout:
            sys.exit(f"demo: backfill not finished after {timeout:.0f}s "
                     "(see `bash dev/airflow/airflow.sh logs scheduler`)")
        time.sleep(2)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from-date", default="2026-11-01")
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--druid-url", required=True)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    first = dt.date.fromisoformat(args.from_date)
    days = [(first + dt.timedelta(days=i)).isoformat() for i in range(args.days)]
    api = AirflowAPI()
    active = [b for b in api.backfills(DAG_ID) if not b.get("completed_at")]
    if active:
        sys.exit(f"demo: backfill {active[0]['id']} of {DAG_ID} is still running ({active[0]['from_date']}.."
                 f"{active[0]['to_date']}); Airflow allows one per DAG. Wait for it, or cancel it: "
                 f"curl -X PUT {api.url}/api/v2/backfills/{active[0]['id']}/cancel (with a bearer token)")
    since = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    t0 = time.monotonic()
    # runs stay queued until the DAG is unpaused; unpausing this catchup=False DAG also starts the scheduled run
    # of the latest complete interval (yesterday): airflow.sh generated input for it (docs/deployment.md)
    print(f"demo: airflow backfill create --dag-id {DAG_ID} --from-date {days[0]} --to-date {days[-1]} "
          "--max-active-runs 2 --reprocess-behavior completed")
    airflow_cli("backfill", "create", "--dag-id", DAG_ID, "--from-date", days[0], "--to-date", days[-1],
                "--max-active-runs", "2", "--reprocess-behavior", "completed")
    airflow_cli("dags", "unpause", DAG_ID)
    print("demo: progress (run state / ingest task state / Druid task state):")
    with DruidClient(ClusterConfig(url=args.druid_url)) as druid:
        runs = watch(api, druid, days, since, args.timeout)
        wall = time.monotonic() - t0
        want = expected_counts(os.environ["AIRFLOW_DEV_EVENTS_DIR"], days)
        ok = True
        print(f"\ndemo: backfill of {len(days)} days finished in {wall:.0f}s\n")
        print(f"{'day':10}  {'run':7}  {'druid task':58} {'duration':>8}  {'sql rows/rollup/bytes':28} "
              f"{'expected':28} result")
        for day in days:
            run = runs[day]
            task_id = run.get("druid_task_id") or ""
            duration = f"{druid.status(task_id).duration_ms / 1000:.1f}s" if task_id else "-"
            got, exp = day_counts(druid, day), want[day]
            match = run["state"] == "success" and got == exp
            ok = ok and match
            fmt = "{rows}/{rollup_rows}/{sum_resp_bytes}"
            print(f"{day:10}  {run['state']:7}  {task_id:58} {duration:>8}  {fmt.format(**got) if got else '-':28} "
                  f"{fmt.format(**exp):28} {'MATCH' if match else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
