"""Print what the demo ingested: the Druid task's state and duration, and the day's row count from Druid SQL,
next to what the generator says it wrote. Exits non-zero when they disagree."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from druid_ingest import ClusterConfig, DruidClient


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--day", required=True)
    parser.add_argument("--events", required=True)
    parser.add_argument("--datasource", default="events_web")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    expected = json.loads(
        subprocess.run(
            [sys.executable, str(root / "dags/data/generate_events.py"), "--out", args.events, "--expect"],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    with DruidClient(ClusterConfig(url=args.url)) as client:
        tasks = [t for t in client.completed_tasks(args.datasource, limit=50) if args.day.replace("-", "") in t.task_id]
        rows = client.sql(
            f'SELECT COUNT(*) AS "segments_rows", SUM("rows") AS "events", SUM("bytes") AS "bytes" '
            f'FROM "{args.datasource}" WHERE TIME_FLOOR(__time, \'P1D\') = TIMESTAMP \'{args.day} 00:00:00\''
        )
    want = expected.get(args.day, {})
    got = rows[0] if rows else {}
    if tasks:
        task = tasks[0]
        print(f"druid task  : {task.task_id}")
        print(f"state       : {task.state} in {task.duration_ms} ms")
    print(f"druid sql   : {got.get('segments_rows')} rolled-up rows, {got.get('events')} events, "
          f"{got.get('bytes')} bytes")
    print(f"generator   : {want.get('rollup_rows')} rolled-up rows, {want.get('rows')} events, "
          f"{want.get('sum_resp_bytes')} bytes")
    same = (got.get("segments_rows"), got.get("events"), got.get("bytes")) == (
        want.get("rollup_rows"), want.get("rows"), want.get("sum_resp_bytes"))
    print("result      : " + ("MATCH - the day is queryable and complete" if same else "MISMATCH"))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
