"""The served-data watcher on the real deployment and the real Druid (``dags/example_druid_served.py``).

Writes into ``events_watched`` come from outside Airflow, as plain POSTs of Druid task specs: an ingestion, then
a compaction, then (with the triggerer SIGKILLed in between and started again) a second ingestion. Each must run
the downstream DAG exactly once, after the Broker serves the new version, with the SQL count inside the run equal
to Druid's; the compaction's run names the compaction; after the restart only the new change is reported.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import requests

from tests.deploy.conftest import HARNESS
from tests.deploy.helpers import ts, unpause

DAG_ID = "example_druid_served"
TASK = "count_served"
DS = "events_watched"
ASSET = "druid_served_events_watched"
SPEC = Path(__file__).resolve().parents[2] / "dags" / "specs" / "events_web.json"
FIRST, SECOND = "2026-11-05", "2026-11-06"
QUIET = 22.0  # seconds with no second run after one: two looks of the watcher (every 10 s) and the scheduler's turn


def _sql_rows(druid, day: str) -> dict[str, int]:
    [row] = druid.sql(f'SELECT COALESCE(SUM("rows"), 0) AS input_rows, COUNT(*) AS stored_rows FROM "{DS}" '
                      "WHERE __time >= TIME_PARSE(?) AND __time < TIME_PARSE(?) + INTERVAL '1' DAY",
                      [{"type": "VARCHAR", "value": day}, {"type": "VARCHAR", "value": day}])
    return {"input_rows": int(row["input_rows"]), "stored_rows": int(row["stored_rows"])}


def _runs_after(api, since: float) -> list[dict[str, Any]]:
    return [r for r in api.dag_runs(DAG_ID) if ts(r.get("queued_at") or r["run_after"]) >= since]


def _one_run(api, since: float, timeout: float = 240,
             quiet: float = QUIET) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run the watch's event starts after ``since``, finished; then no other for ``quiet`` seconds."""
    deadline = time.monotonic() + timeout
    while not (runs := _runs_after(api, since)) or runs[0]["state"] not in ("success", "failed"):
        assert time.monotonic() < deadline, f"{DAG_ID}: no finished run after the change in {timeout}s: {runs}"
        time.sleep(2)
    time.sleep(quiet)
    runs = _runs_after(api, since)
    assert len(runs) == 1, f"one change, {len(runs)} runs: {[(r['dag_run_id'], r['state']) for r in runs]}"
    assert runs[0]["state"] == "success", runs[0]
    counted = api.xcom(DAG_ID, runs[0]["dag_run_id"], TASK)
    assert counted, f"the run counted nothing: {counted}"
    return runs[0], list(counted)


def _cursor(api) -> dict[str, Any] | None:
    [asset] = api.get("/assets", name_pattern=ASSET)["assets"]
    entries = api.get(f"/assets/{asset['id']}/state-store")["asset_state_store"]
    prefix = f"druid_served_cursor:druid_cluster_default:{DS}:"
    return next((e["value"] for e in entries if e["key"].startswith(prefix)), None)


def _start_watching(api) -> None:
    """Unpause the DAG and have its file parsed again: Airflow creates an Asset's watcher trigger only while a DAG
    scheduled on it is active (at parse time); then wait for the watch's first cursor (or a kept one) to be read."""
    unpause(api, DAG_ID)
    token = api.get(f"/dags/{DAG_ID}/details")["file_token"]
    api.send("PUT", f"/parseDagFile/{token}")
    deadline = time.monotonic() + 180
    while _cursor(api) is None:
        assert time.monotonic() < deadline, "the watcher kept no cursor 180 s after the DAG was unpaused"
        time.sleep(2)


def _triggerer_pid(env: dict[str, str]) -> int:
    return int((Path(env["AIRFLOW_HOME"]).parent / "run" / "triggerer.pid").read_text())


def _post_task(druid_url: str, task: dict[str, Any]) -> str:
    resp = requests.post(f"{druid_url}/druid/indexer/v1/task", json=task, timeout=30)
    assert resp.status_code == 200, resp.text
    return str(resp.json()["task"])


def _finish(druid_url: str, task_id: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while True:
        status = requests.get(f"{druid_url}/druid/indexer/v1/task/{task_id}/status", timeout=30).json()["status"]
        if status["statusCode"] != "RUNNING":
            assert status["statusCode"] == "SUCCESS", status
            return
        assert time.monotonic() < deadline, f"Druid task {task_id} still running after {timeout}s"
        time.sleep(1)


def _day_window(day: str) -> str:
    start = dt.date.fromisoformat(day)
    return f"{start}/{start + dt.timedelta(days=1)}"


def _write(druid, druid_url: str, task: dict[str, Any], day: str, writer: str) -> float:
    """POST ``task`` to Druid (no Airflow in between), wait for SUCCESS, and return when the Broker began to serve
    the day's new version: looked at every 0.2 s from the test's side with the watch's own look, from a cursor
    taken before the POST (the timeline's first mark; the downstream DAG cannot see it)."""
    cursor = druid.served_changes(DS, _day_window(day)).cursor
    task_id = _post_task(druid_url, task)
    deadline = time.monotonic() + 300
    while True:
        batch = druid.served_changes(DS, _day_window(day), cursor)
        if any(c.writer == writer for c in batch.changes):
            break
        cursor = batch.cursor
        assert time.monotonic() < deadline, f"{task_id}: no new {writer} version of {day} served after 300 s"
        time.sleep(0.2)
    served = time.time()
    _finish(druid_url, task_id)
    print(f"[watch] {task_id}: SUCCESS, {day} served by {writer}")
    return served


def _ingestion(events_dir: str, day: str) -> dict[str, Any]:
    """The example spec for ``events_watched``, as another team's job would POST it."""
    spec = copy.deepcopy(json.loads(SPEC.read_text()))
    spec["spec"]["dataSchema"]["dataSource"] = DS
    spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = [f"{day}/P1D"]
    spec["spec"]["ioConfig"]["inputSource"]["baseDir"] = os.path.join(events_dir, day)
    spec["spec"]["ioConfig"]["appendToExisting"] = False
    return spec


def _compaction(day: str) -> dict[str, Any]:
    """The day's HOUR segments into one DAY segment, as Druid's auto-compaction would."""
    return {"type": "compact", "dataSource": DS,
            "ioConfig": {"type": "compact", "inputSpec": {"type": "interval", "interval": f"{day}/P1D"}},
            "granularitySpec": {"segmentGranularity": "DAY"}}


def _timeline(api, label: str, served: float, run: dict[str, Any]) -> None:
    """served → the Asset event (the watcher's share) → the run queued, started, ended (Airflow's)."""
    [asset] = api.get("/assets", name_pattern=ASSET)["assets"]
    events = api.get("/assets/events", asset_id=asset["id"], order_by="-timestamp", limit=5)["asset_events"]
    event = next(e for e in events if any(r["run_id"] == run["dag_run_id"] for r in e["created_dagruns"]))
    marks = [("event", ts(event["timestamp"])), ("queued", ts(run["queued_at"])), ("started", ts(run["start_date"])),
             ("ended", ts(run["end_date"]))]
    TIMELINE.append((label, [(name, at - served) for name, at in marks]))
    print(f"[watch] {label}: served +0.0s " + " ".join(f"{name} +{at - served:.1f}s" for name, at in marks))


TIMELINE: list[tuple[str, list[tuple[str, float]]]] = []


def test_writes_from_outside_airflow_run_the_downstream_dag_once_each(api, druid, druid_url, deploy_env) -> None:
    events_dir = deploy_env["AIRFLOW_DEV_EVENTS_DIR"]
    _start_watching(api)
    time.sleep(12)  # one more look: the state the test starts from is kept

    since_first = since = time.time()
    served = _write(druid, druid_url, _ingestion(events_dir, FIRST), FIRST, "ingestion")
    # no quiet wait here: the compaction is written at once, and the watcher's looks meanwhile count as this
    # change's quiet time too (a second run of it shows among the runs since `since_first`, checked below, after
    # the compaction's run and its quiet: a longer watch than a quiet wait of its own)
    first_run, [change] = _one_run(api, since, quiet=0)
    _timeline(api, f"ingestion of {FIRST}", served, first_run)
    assert (change["kind"], change["interval"][:10], change["writer"]) == ("served", FIRST, "ingestion"), change
    assert {k: change[k] for k in ("input_rows", "stored_rows")} == _sql_rows(druid, FIRST)  # SQL saw it served
    assert change["input_rows"] > 0
    first_key = change["key"]

    since = time.time()
    served = _write(druid, druid_url, _compaction(FIRST), FIRST, "compaction")
    run, [change] = _one_run(api, since)
    _timeline(api, f"compaction of {FIRST}", served, run)
    assert (change["kind"], change["interval"][:10], change["writer"]) == ("served", FIRST, "compaction"), change
    assert {k: change[k] for k in ("input_rows", "stored_rows")} == _sql_rows(druid, FIRST)
    both = _runs_after(api, since_first)  # the ingestion's run and the compaction's: no other, from either change
    assert sorted(r["dag_run_id"] for r in both) == sorted([first_run["dag_run_id"], run["dag_run_id"]]), (
        f"two changes, {len(both)} runs: {[(r['dag_run_id'], r['state']) for r in both]}")
    kept = _cursor(api)
    # kept once the event was stored (later looks may move it on: the hourly segments unloaded, no news)
    assert kept is not None and [c[2] for c in kept["chunks"] if c[0][:10] == FIRST] == [change["version"]], kept

    pid = _triggerer_pid(deploy_env)
    os.killpg(pid, signal.SIGKILL)
    print(f"[watch] SIGKILL triggerer process group {pid}")
    since = time.time()
    served = _write(druid, druid_url, _ingestion(events_dir, SECOND), SECOND, "ingestion")  # no triggerer runs
    subprocess.run(["bash", str(HARNESS), "start"], check=True, capture_output=True, timeout=300)
    print("[watch] triggerer started again")
    run, [change] = _one_run(api, since)
    _timeline(api, f"ingestion of {SECOND}, served while the triggerer was down", served, run)
    assert (change["kind"], change["interval"][:10], change["writer"]) == ("served", SECOND, "ingestion"), change
    assert {k: change[k] for k in ("input_rows", "stored_rows")} == _sql_rows(druid, SECOND)
    assert change["key"] != first_key
