"""P5: worker-slot-seconds of a 5-day backfill on the real deployment and the real Druid, three ways.

Why: an executor slot blocked while Druid works is the cost deferral exists to remove. The same 5 days of
``events_web`` data are backfilled with (1) the one-shot deferrable ``DruidIngestOperator``, (2) the split
``DruidSubmitOperator`` -> ``DruidTaskSensor`` -> ``DruidHandoffSensor`` (deferrable), (3)
``DruidIngestOperator(deferrable=False)``, which waits inside the worker. DAGs: ``benchmarks/dags/bench_p5_dags.py``,
each with its own datasource and a fresh ``idempotency_key`` per run (new Druid task ids: Druid really ingests).

How the DAGs reach the deployment (dev/airflow/airflow.sh, DAGS_FOLDER = <repo>/dags): the file is symlinked into
``dags/`` for the run only, ``airflow dags reserialize -B dags-folder`` registers it at once (the dag-processor
would notice a new file only at its next bundle refresh, 5 min by default), and afterwards the link is removed and
the three DAGs are deleted through the REST API (``--keep-dags`` keeps them for inspection). Backfills are created
and watched through the REST API (``POST /api/v2/backfills``, ``--max-active-runs 2``: Druid's dev cluster runs
two supervisors at a time); the variants run one after the other.

Worker-slot-seconds: the time task instances spend in state ``running``, from the event log
(``GET /api/v2/eventLogs``): the api-server logs ``running`` when a worker starts a leg (first run, or a resume
after a deferral) and ``deferred``/``success``/``failed``/``up_for_retry`` when it ends; the sum of those legs per
task instance try. Time deferred (in the triggerer) and queued is therefore excluded. The Task SDK reports
``running`` right after it forks the task process, before the DAG file is parsed, so a leg includes the parse;
the moments a worker process lives before that report and after its last one (start-up, log upload) are not
counted. For task instances that never deferred the leg sum is
checked against the try's ``end_date - start_date`` (``.../tries``): ``check_max_diff_s`` in the results.

    .venv/bin/python benchmarks/p5_worker_slots.py [--first-day 2026-11-03] [--days 5] [--keep-dags]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
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
DAG_SRC = Path(__file__).resolve().parent / "dags" / "bench_p5_dags.py"
DAG_LINK = ROOT / "dags" / DAG_SRC.name
VARIANTS = [("one-shot deferrable", "bench_p5_oneshot"), ("split deferrable", "bench_p5_split"),
            ("deferrable=False", "bench_p5_blocking")]
ENDS_LEG = {"deferred", "success", "failed", "up_for_retry", "up_for_reschedule", "skipped", "upstream_failed",
            "removed", "restarting"}


def ts(text: str | None) -> float:
    assert text, "missing timestamp"
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def iso(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).isoformat()


def deploy_env() -> dict[str, str]:
    out = subprocess.run(["bash", "-c", f'eval "$(bash {HARNESS} env)" && env -0'], capture_output=True, check=True)
    return dict(item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item)


class API(AirflowAPI):
    """The dev harness's REST client plus the few writes this benchmark needs."""

    def send(self, method: str, path: str, **kwargs: Any) -> Any:
        self.get("/version")  # renews the token when needed
        resp = self.session.request(method, f"{self.url}/api/v2{path}", timeout=60, **kwargs)
        resp.raise_for_status()
        return resp.json() if resp.content else None

    def all_event_logs(self, dag_id: str, after: float) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            page = self.get("/eventLogs", dag_id=dag_id, after=iso(after), order_by="when", limit=100,
                            offset=len(out))
            out.extend(page["event_logs"])
            if not page["event_logs"] or len(out) >= page["total_entries"]:
                return out

    def tries(self, dag_id: str, run_id: str, task_id: str) -> list[dict[str, Any]]:
        return self.get(f"/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}/taskInstances/{task_id}/tries")[
            "task_instances"]


def legs_of(events: list[dict[str, Any]]) -> dict[tuple, list[tuple[float, float]]]:
    """(run_id, task_id, map_index, try_number) -> [(start, end)] of each running leg."""
    by_ti: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if e.get("task_id") and e.get("run_id"):
            by_ti[(e["run_id"], e["task_id"], e.get("map_index", -1), e.get("try_number"))].append(e)
    legs: dict[tuple, list[tuple[float, float]]] = {}
    for key, evs in by_ti.items():
        opened: float | None = None
        out = []
        for e in sorted(evs, key=lambda e: ts(e["when"])):
            if e["event"] == "running":
                opened = ts(e["when"])
            elif e["event"] in ENDS_LEG and opened is not None:
                out.append((opened, ts(e["when"])))
                opened = None
        if opened is not None:
            raise RuntimeError(f"{key}: a running leg never ended in the event log")
        legs[key] = out
    return legs


def expected_counts(events_dir: str, first_day: str, days: int) -> dict[str, dict[str, int]]:
    out = subprocess.run([sys.executable, str(ROOT / "dags" / "data" / "generate_events.py"), "--out", events_dir,
                          "--start", first_day, "--days", str(days), "--expect"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def day_counts(druid: DruidClient, datasource: str, day: str) -> dict[str, Any]:
    t = {"type": "TIMESTAMP", "value": f"{day} 00:00:00"}
    rows = druid.sql('SELECT COUNT(*) AS "rollup_rows", SUM("rows") AS "rows", SUM("bytes") AS "sum_resp_bytes" '
                     f"FROM \"{datasource}\" WHERE __time >= ? AND __time < ? + INTERVAL '1' DAY", [t, t])
    return rows[0] if rows else {}


def druid_tasks(druid_url: str, datasource: str, since: float) -> list[dict[str, Any]]:
    tasks = requests.get(f"{druid_url}/druid/indexer/v1/tasks", params={"datasource": datasource}, timeout=30).json()
    return [t for t in tasks if t.get("type") == "index_parallel" and ts(t["createdTime"]) >= since]


def register_dags(api: API, env: dict[str, str]) -> None:
    if DAG_LINK.is_symlink() or DAG_LINK.exists():
        if not (DAG_LINK.is_symlink() and DAG_LINK.resolve() == DAG_SRC):
            sys.exit(f"{DAG_LINK} exists and is not this benchmark's link; not touching it")
    else:
        DAG_LINK.symlink_to(DAG_SRC)
    subprocess.run([str(ROOT / ".venv" / "bin" / "airflow"), "dags", "reserialize", "-B", "dags-folder"], env=env,
                   check=True, capture_output=True, timeout=300)
    deadline = time.monotonic() + 120
    for _, dag_id in VARIANTS:
        while True:
            try:
                api.get(f"/dags/{dag_id}")
                break
            except requests.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(2)
        api.send("PATCH", f"/dags/{dag_id}", json={"is_paused": False})


def unregister_dags(api: API, keep: bool) -> None:
    for _, dag_id in VARIANTS:
        with contextlib.suppress(requests.HTTPError):
            api.send("PATCH", f"/dags/{dag_id}", json={"is_paused": True})
    if DAG_LINK.is_symlink() and DAG_LINK.resolve() == DAG_SRC:
        DAG_LINK.unlink()
    if not keep:
        for _, dag_id in VARIANTS:
            try:
                api.send("DELETE", f"/dags/{dag_id}")
            except requests.HTTPError as exc:
                print(f"  could not delete {dag_id}: {exc}")


def run_variant(api: API, druid: DruidClient, druid_url: str, label: str, dag_id: str, day_list: list[str],
                expected: dict[str, dict[str, int]], timeout: float) -> dict[str, Any]:
    key = f"p5-{int(time.time())}"
    since = time.time() - 1
    backfill = api.send("POST", "/backfills", json={
        "dag_id": dag_id, "from_date": f"{day_list[0]}T00:00:00Z", "to_date": f"{day_list[-1]}T00:00:00Z",
        "max_active_runs": 2, "reprocess_behavior": "completed", "dag_run_conf": {"idempotency_key": key}})
    deadline = time.monotonic() + timeout
    while True:
        runs = {r["logical_date"][:10]: r for r in api.dag_runs(dag_id, run_type="backfill")
                if r["logical_date"][:10] in day_list and r.get("queued_at") and ts(r["queued_at"]) >= since}
        done = len(runs) == len(day_list) and all(r["state"] in ("success", "failed") for r in runs.values())
        if done and api.get(f"/backfills/{backfill['id']}").get("completed_at"):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"{dag_id}: backfill not finished after {timeout:.0f} s: "
                               f"{ {d: r['state'] for d, r in runs.items()} }")
        time.sleep(2)
    wall = max(ts(r["end_date"]) for r in runs.values()) - since
    run_ids = {r["dag_run_id"] for r in runs.values()}
    events = [e for e in api.all_event_logs(dag_id, since) if e.get("run_id") in run_ids]
    legs = legs_of(events)
    slot_s = sum(end - start for ls in legs.values() for start, end in ls)
    per_task: dict[str, float] = defaultdict(float)
    for (_, task_id, _, _), ls in legs.items():
        per_task[task_id] += sum(e - s for s, e in ls)
    deferrals = sum(1 for e in events if e["event"] == "deferred")
    # cross-check: a try that never deferred is one leg, which must match the try's own start/end
    diffs = []
    for (run_id, task_id, _, try_no), ls in legs.items():
        if len(ls) == 1:
            ti = next((t for t in api.tries(dag_id, run_id, task_id) if t["try_number"] == try_no), None)
            if ti and ti.get("start_date") and ti.get("end_date"):
                diffs.append(abs((ts(ti["end_date"]) - ts(ti["start_date"])) - (ls[0][1] - ls[0][0])))
    datasource = dag_id
    counts = {day: day_counts(druid, datasource, day) for day in day_list}
    matches = sum(1 for day in day_list if counts[day] == expected[day])
    created = druid_tasks(druid_url, datasource, since)
    return {
        "variant": label, "dag_id": dag_id, "idempotency_key": key, "wall_s": round(wall, 1),
        "runs_ok": f"{sum(r['state'] == 'success' for r in runs.values())}/{len(day_list)}",
        "task_instances": len({k[:3] for k in legs}), "legs": sum(len(v) for v in legs.values()),
        "deferrals": deferrals, "slot_s": round(slot_s, 1), "slot_s_per_ingestion": round(slot_s / len(day_list), 2),
        "druid_tasks": len(created), "sql_match": f"{matches}/{len(day_list)}",
        "rows": sum(int(c.get("rows") or 0) for c in counts.values()),
        "expected_rows": sum(expected[d]["rows"] for d in day_list),
        "per_task_slot_s": {k: round(v, 2) for k, v in per_task.items()},
        "check_max_diff_s": round(max(diffs), 3) if diffs else None,
        "counts": counts, "legs_detail": {"|".join(map(str, k)): v for k, v in legs.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-day", default="2026-11-03")
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--druid", default=os.environ.get("DRUID_URL", "http://127.0.0.1:8888"))
    parser.add_argument("--timeout", type=float, default=240, help="seconds per variant's backfill")
    parser.add_argument("--keep-dags", action="store_true", help="keep the benchmark DAGs and their runs")
    args = parser.parse_args()
    started = time.monotonic()
    info = benchlib.machine("apache-airflow", "apache-airflow-task-sdk")
    benchlib.print_machine(info)
    env = deploy_env()
    api = API(env["AIRFLOW_DEV_API_URL"], password=env["AIRFLOW_DEV_ADMIN_PASSWORD"])
    health = api.health()
    bad = {k: v for k, v in health.items() if not isinstance(v, dict) or v.get("status") != "healthy"}
    if bad:
        sys.exit(f"the deployment at {env['AIRFLOW_DEV_API_URL']} is not healthy: {bad}; "
                 "start it: bash dev/airflow/airflow.sh start")
    info["airflow_version"] = api.get("/version").get("version")
    start = dt.date.fromisoformat(args.first_day)
    day_list = [(start + dt.timedelta(days=i)).isoformat() for i in range(args.days)]
    missing = [d for d in day_list if not (Path(env["AIRFLOW_DEV_EVENTS_DIR"]) / d).is_dir()]
    if missing:
        sys.exit(f"no sample events for {missing} in {env['AIRFLOW_DEV_EVENTS_DIR']}")
    expected = expected_counts(env["AIRFLOW_DEV_EVENTS_DIR"], args.first_day, args.days)
    print(f"P5 worker-slot-seconds: backfill {day_list[0]}..{day_list[-1]} ({args.days} days), Airflow "
          f"{info['airflow_version']} at {env['AIRFLOW_DEV_API_URL']}, Druid {args.druid}")
    rows = []
    with DruidClient(ClusterConfig(url=args.druid, read_timeout=60)) as druid:
        try:
            register_dags(api, env)
            print(f"  DAGs registered ({time.monotonic() - started:.0f} s)", flush=True)
            for label, dag_id in VARIANTS:
                row = run_variant(api, druid, args.druid, label, dag_id, day_list, expected, args.timeout)
                rows.append(row)
                print(f"  {label}: {row['runs_ok']} runs green in {row['wall_s']} s, {row['slot_s']} worker-slot-s "
                      f"({time.monotonic() - started:.0f} s)", flush=True)
        finally:
            unregister_dags(api, args.keep_dags)
    print()
    benchlib.print_table([("variant", "variant"), ("wall_s", "wall s"), ("runs_ok", "runs ok"),
                          ("task_instances", "TIs"), ("legs", "running legs"), ("deferrals", "deferrals"),
                          ("slot_s", "worker-slot-s"), ("slot_s_per_ingestion", "per ingestion s"),
                          ("druid_tasks", "Druid tasks"), ("sql_match", "SQL = expected"),
                          ("rows", "rows"), ("expected_rows", "expected rows")], rows)
    for row in rows:
        print(f"  {row['variant']}: per task " + ", ".join(f"{k} {v} s" for k, v in row["per_task_slot_s"].items())
              + f"; legs vs tries max diff {row['check_max_diff_s']} s")
    by = {r["variant"]: r for r in rows}
    oneshot, split, blocking = by[VARIANTS[0][0]], by[VARIANTS[1][0]], by[VARIANTS[2][0]]
    ratio = blocking["slot_s"] / max(oneshot["slot_s"], 1e-9)
    met = oneshot["slot_s"] < blocking["slot_s"]
    print(f"ratio: deferrable=False / one-shot deferrable = {ratio:.1f}x worker-slot-seconds "
          f"({blocking['slot_s_per_ingestion']} vs {oneshot['slot_s_per_ingestion']} s per ingestion; split "
          f"{split['slot_s_per_ingestion']} s) | goal: waiting costs no worker slot (one-shot deferrable holds one "
          f"only to submit and to finish) -> {'MET' if met else 'NOT MET'}")
    elapsed = time.monotonic() - started
    print(f"run time {elapsed:.0f} s")
    benchlib.write_results("p5_worker_slots", {
        "benchmark": "P5 worker-slot-seconds, 5-day backfill", "machine": info, "days": day_list, "rows": rows,
        "ratio_blocking_over_oneshot": round(ratio, 2), "goal": "waiting costs no worker slot", "goal_met": met,
        "run_seconds": round(elapsed, 1),
    })


if __name__ == "__main__":
    main()
