"""The served-data watcher on the real deployment and the real Druid (``dags/example_druid_served.py``).

Writes into ``events_watched`` come from outside Airflow, as plain POSTs of Druid task specs: an ingestion, then
a compaction, then (with the triggerer SIGKILLed in between and started again) a second ingestion. Each must run
the downstream DAG exactly once, after the Broker serves the new version, with the SQL count inside the run equal
to Druid's; the compaction's run names the compaction; after the restart only the new change is reported.
"""

from __future__ import annotations

import copy
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


def _ingest_from_outside(druid_url: str, events_dir: str, day: str) -> str:
    """The example spec for ``events_watched``, POSTed as another team's job would: no Airflow in between."""
    spec = copy.deepcopy(json.loads(SPEC.read_text()))
    spec["spec"]["dataSchema"]["dataSource"] = DS
    spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = [f"{day}/P1D"]
    spec["spec"]["ioConfig"]["inputSource"]["baseDir"] = os.path.join(events_dir, day)
    spec["spec"]["ioConfig"]["appendToExisting"] = False
    task_id = _post_task(druid_url, spec)
    _finish(druid_url, task_id)
    return task_id


def _compact_from_outside(druid_url: str, day: str) -> str:
    """HOUR segments of a day into one DAY segment, as Druid's auto-compaction would."""
    task_id = _post_task(druid_url, {
        "type": "compact", "dataSource": DS,
        "ioConfig": {"type": "compact", "inputSpec": {"type": "interval", "interval": f"{day}/P1D"}},
        "granularitySpec": {"segmentGranularity": "DAY"},
    })
    _finish(druid_url, task_id)
    return task_id


def _sql_rows(druid, day: str) -> dict[str, int]:
    [row] = druid.sql(f'SELECT COALESCE(SUM("rows"), 0) AS input_rows, COUNT(*) AS stored_rows FROM "{DS}" '
                      "WHERE __time >= TIME_PARSE(?) AND __time < TIME_PARSE(?) + INTERVAL '1' DAY",
                      [{"type": "VARCHAR", "value": day}, {"type": "VARCHAR", "value": day}])
    return {"input_rows": int(row["input_rows"]), "stored_rows": int(row["stored_rows"])}


def _runs_after(api, since: float) -> list[dict[str, Any]]:
    return [r for r in api.dag_runs(DAG_ID) if ts(r.get("queued_at") or r["run_after"]) >= since]


def _one_run(api, since: float, timeout: float = 240) -> list[dict[str, Any]]:
    """The run the watch's event starts after ``since``, finished; then no other for ``QUIET`` seconds."""
    deadline = time.monotonic() + timeout
    while not (runs := _runs_after(api, since)) or runs[0]["state"] not in ("success", "failed"):
        assert time.monotonic() < deadline, f"{DAG_ID}: no finished run after the change in {timeout}s: {runs}"
        time.sleep(2)
    time.sleep(QUIET)
    runs = _runs_after(api, since)
    assert len(runs) == 1, f"one change, {len(runs)} runs: {[(r['dag_run_id'], r['state']) for r in runs]}"
    assert runs[0]["state"] == "success", runs[0]
    counted = api.xcom(DAG_ID, runs[0]["dag_run_id"], TASK)
    assert counted, f"the run counted nothing: {counted}"
    return list(counted)


def _cursor(api) -> dict[str, Any] | None:
    [asset] = api.get("/assets", name_pattern=ASSET)["assets"]
    entries = api.get(f"/assets/{asset['id']}/state-store")["asset_state_store"]
    return next((e["value"] for e in entries if e["key"].startswith(f"druid_served_cursor:{DS}:")), None)


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


def test_writes_from_outside_airflow_run_the_downstream_dag_once_each(api, druid, druid_url, deploy_env) -> None:
    events_dir = deploy_env["AIRFLOW_DEV_EVENTS_DIR"]
    _start_watching(api)
    time.sleep(12)  # one more look: the state the test starts from is kept

    since = time.time()
    ingestion = _ingest_from_outside(druid_url, events_dir, FIRST)
    print(f"\n[watch] {ingestion} SUCCESS (a plain POST)")
    [change] = _one_run(api, since)
    assert (change["kind"], change["interval"][:10], change["writer"]) == ("served", FIRST, "ingestion"), change
    assert {k: change[k] for k in ("input_rows", "stored_rows")} == _sql_rows(druid, FIRST)  # SQL saw it served
    assert change["input_rows"] > 0
    first_key = change["key"]

    since = time.time()
    compaction = _compact_from_outside(druid_url, FIRST)
    print(f"[watch] {compaction} SUCCESS (compaction of {FIRST})")
    [change] = _one_run(api, since)
    assert (change["kind"], change["interval"][:10], change["writer"]) == ("served", FIRST, "compaction"), change
    assert {k: change[k] for k in ("input_rows", "stored_rows")} == _sql_rows(druid, FIRST)
    kept = _cursor(api)
    assert kept is not None and kept["served"] == change["key"].split(">")[1]  # kept after the event was stored

    pid = _triggerer_pid(deploy_env)
    os.killpg(pid, signal.SIGKILL)
    print(f"[watch] SIGKILL triggerer process group {pid}")
    since = time.time()
    ingestion = _ingest_from_outside(druid_url, events_dir, SECOND)  # while no triggerer runs
    print(f"[watch] {ingestion} SUCCESS while the triggerer was down")
    subprocess.run(["bash", str(HARNESS), "start"], check=True, capture_output=True, timeout=300)
    print("[watch] triggerer started again")
    [change] = _one_run(api, since)
    assert (change["kind"], change["interval"][:10], change["writer"]) == ("served", SECOND, "ingestion"), change
    assert {k: change[k] for k in ("input_rows", "stored_rows")} == _sql_rows(druid, SECOND)
    assert change["key"] != first_key
