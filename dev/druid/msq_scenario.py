#!/usr/bin/env python3
"""The MSQ scenario on a real Druid that has the ``druid-multi-stage-query`` extension loaded (docs/msq.md).

Two days of ``dags/sql/events_web_msq.sql`` ingested, a re-run adopts (no POST), a changed statement replaces
(new controller task, new version), and Druid SQL counts match what the generator wrote. Run by hand, not in
CI (CI cannot build the extension): it exits 1 on any mismatch and prints the trimmed requests and answers it
saw (``--record FILE`` writes them as JSON lines), which is what dev/druid/RECORDED.md §MSQ keeps.

    DRUID_EXTENSIONS_DIR=/path/to/extensions bash dev/druid/druid.sh start
    .venv/bin/python dev/druid/msq_scenario.py [--url http://127.0.0.1:8888] [--record /tmp/msq.jsonl]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import requests
from druid_ingest import ClusterConfig, DruidClient, DruidTaskFailedError, DuplicateTaskIdError, build_msq_plan
from druid_ingest.api._msq_endpoints import parse_sql_task, sql_task
from druid_ingest.wire import call

ROOT = Path(__file__).resolve().parents[2]
SQL = (ROOT / "dags" / "sql" / "events_web_msq.sql").read_text()
DAYS = {"2026-11-01": "2026-11-01T00:00:00Z/2026-11-02T00:00:00Z",
        "2026-11-02": "2026-11-02T00:00:00Z/2026-11-03T00:00:00Z"}
CHANGED = ' AND "country" <> \'DE\''
TRIM = 600


def recorder(log: list[dict[str, Any]]) -> requests.Session:
    """A session that keeps every exchange, bodies trimmed (the report is long)."""
    session = requests.Session()

    def hook(resp: requests.Response, *args: Any, **kwargs: Any) -> None:
        body = resp.request.body
        text = body.decode() if isinstance(body, bytes) else body or ""
        log.append({"method": resp.request.method, "url": resp.request.url, "request": text[:TRIM],
                    "status": resp.status_code, "answer": resp.text[:TRIM]})

    session.hooks["response"].append(hook)
    return session


def expected(root: Path, day: str, changed: bool) -> dict[str, int]:
    """Counts from the generated file: input rows, and rollup rows = distinct (minute, country, device, page)."""
    rows = [json.loads(line) for line in (root / day / "events.json").read_text().splitlines() if line.strip()]
    if changed:
        rows = [r for r in rows if r["country"] != "DE"]
    keys = Counter((r["event_ts"][:16], r["country"], r["device"], r["page_id"]) for r in rows)
    return {"input_rows": len(rows), "rollup_rows": len(keys)}


def counts(client: DruidClient, datasource: str, interval: str) -> dict[str, int]:
    start, end = (t.replace("T", " ").rstrip("Z") for t in interval.split("/"))
    rows = client.sql(f'SELECT COUNT(*) AS rollup_rows, SUM("rows") AS input_rows FROM "{datasource}" '
                      "WHERE __time >= ? AND __time < ?",
                      [{"type": "TIMESTAMP", "value": start}, {"type": "TIMESTAMP", "value": end}])
    return {"input_rows": int(rows[0]["input_rows"] or 0), "rollup_rows": int(rows[0]["rollup_rows"])} if rows else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8888")
    parser.add_argument("--datasource", default="msq_events")
    parser.add_argument("--record", type=Path)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="msq-events-"))
    subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(root), "--start",
                    "2026-11-01", "--days", "2"], check=True, capture_output=True)
    log: list[dict[str, Any]] = []
    client = DruidClient(ClusterConfig(url=args.url), session=recorder(log))
    problems: list[str] = []

    def plan(interval: str, changed: bool = False, events_root: Path = root) -> Any:
        variables = {"events_root": str(events_root), **({"extra_filter": CHANGED} if changed else {})}
        return build_msq_plan(SQL, intervals=[interval], datasource=args.datasource, variables=variables,
                              context={"maxNumTasks": 2, "finalizeAggregations": False})

    def step(name: str, day: str, changed: bool, action: str) -> Any:
        before = len(log)
        result = client.ingest(plan(DAYS[day], changed), handoff_timeout=600)
        got, want = counts(client, args.datasource, DAYS[day]), expected(root, day, changed)
        posts = [e for e in log[before:] if e["url"].endswith("/druid/v2/sql/task")]
        handoff = result.handoff
        print(f"{name}: {day} {result.submit.action} {result.submit.task_id} ({result.status.task_type}, "
              f"{result.status.duration_ms} ms); handoff {handoff.state if handoff else None} version "
              f"{handoff.version if handoff else None}; SQL {got} expected {want}; {len(posts)} POST(s)")
        if result.submit.action != action:
            problems.append(f"{name}: expected {action}, got {result.submit.action}")
        if got != want:
            problems.append(f"{name}: counts {got} != {want}")
        if (action == "adopted") != (len(posts) == 0):
            problems.append(f"{name}: {len(posts)} POST(s) to /druid/v2/sql/task")
        return result

    first = [step("ingest", day, False, "submitted") for day in DAYS]
    again = step("re-run", "2026-11-01", False, "adopted")
    changed = step("changed", "2026-11-01", True, "submitted")
    if again.submit.task_id != first[0].submit.task_id:
        problems.append("re-run did not adopt the first task")
    if changed.handoff is None or first[0].handoff is None or changed.handoff.version == first[0].handoff.version:
        problems.append("the changed statement did not publish a new version")
    try:  # a racing duplicate POST: MSQ wraps the Overlord's 400 in a 500; the client reads it as a duplicate
        client._run(call(sql_task(plan(DAYS["2026-11-02"]), first[1].submit.task_id), parse_sql_task))
        problems.append("a duplicate POST was accepted")
    except DuplicateTaskIdError as exc:
        print(f"duplicate: DuplicateTaskIdError({exc.task_id}) after {exc.status}")
    # a statement over a missing folder: failOnEmptyInsert (the plan's default) makes it FAIL, the day stays
    before_fail = counts(client, args.datasource, DAYS["2026-11-02"])
    try:
        client.ingest(plan(DAYS["2026-11-02"], events_root=root / "missing"), handoff_timeout=60)
        problems.append("a statement over a missing folder succeeded")
    except DruidTaskFailedError as exc:
        print("failure summary:\n" + str(exc)[:1500])
    if counts(client, args.datasource, DAYS["2026-11-02"]) != before_fail:
        problems.append("the failed statement changed the day's data")
    if args.record:
        args.record.write_text("".join(json.dumps(e) + "\n" for e in log))
    print("\n".join(problems) if problems else "MSQ scenario: all checks passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
