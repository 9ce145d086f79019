"""What the deployment tests share: backfill and wait, Druid task lists per day, a concurrency probe."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

import requests

from tests import druid_sql

DAILY = "example_druid_daily"
SPLIT = "example_druid_split"
INGEST = "ingest_events_web"
DATASOURCE = "events_web"
IN_FLIGHT = ("pending", "waiting", "running")


def days(first: str, n: int) -> list[str]:
    start = dt.date.fromisoformat(first)
    return [(start + dt.timedelta(days=i)).isoformat() for i in range(n)]


def ts(text: str | None) -> float:
    """Airflow/Druid ISO time -> epoch seconds."""
    assert text, "missing timestamp"
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def id_prefix(day: str, datasource: str = DATASOURCE) -> str:
    """Druid task ids of the example spec start with the day's span: ingest_events_web_20261110-20261111_."""
    start = dt.date.fromisoformat(day)
    end = start + dt.timedelta(days=1)
    return f"ingest_{datasource}_{start:%Y%m%d}-{end:%Y%m%d}_"


def supervisors(druid_url: str, state: str | None = None, datasource: str = DATASOURCE) -> list[dict[str, Any]]:
    """index_parallel supervisor tasks of the datasource (never their partial_* / single_phase_sub_task workers)."""
    params = {"datasource": datasource}
    if state:
        params["state"] = state
    tasks = requests.get(f"{druid_url}/druid/indexer/v1/tasks", params=params, timeout=30).json()
    return [t for t in tasks if t.get("type") == "index_parallel"]


def day_tasks(druid_url: str, day_list: list[str], since: float = 0.0,
              datasource: str = DATASOURCE) -> list[dict[str, Any]]:
    """Supervisors of these days created at/after ``since`` (epoch s), any state."""
    prefixes = tuple(id_prefix(d, datasource) for d in day_list)
    return [t for t in supervisors(druid_url, datasource=datasource)
            if t["id"].startswith(prefixes) and ts(t["createdTime"]) >= since]


def show_tasks(label: str, tasks: list[dict[str, Any]]) -> None:
    """Print a Druid task list (id, state, created, errorMsg): each crash point shows its day's before and after."""
    lines = [f"    {t['id']}  {t['statusCode']:<8} created {t['createdTime'][11:23]}"
             + (f"  errorMsg {t['errorMsg'][:60]!r}" if t.get("errorMsg") else "") for t in tasks]
    print(f"  Druid tasks ({label}): {len(tasks)}\n" + ("\n".join(lines) or "    (none)"))


def backfill(airflow, dag_id: str, first: str, last: str, conf: dict | None = None, max_active_runs: int = 2) -> None:
    args = ["backfill", "create", "--dag-id", dag_id, "--from-date", first, "--to-date", last,
            "--max-active-runs", str(max_active_runs), "--reprocess-behavior", "completed"]
    if conf is not None:
        args += ["--dag-run-conf", json.dumps(conf)]
    airflow(*args)


def unpause(api, dag_id: str) -> None:
    """``airflow dags unpause`` through the REST API (no CLI start: each costs seconds of imports on 2 cores)."""
    api.send("PATCH", f"/dags/{dag_id}", {"is_paused": False})


def backfill_api(api, dag_id: str, first: str, last: str, conf: dict | None = None, max_active_runs: int = 2) -> None:
    """What ``backfill`` asks of the CLI, as the REST call the CLI makes (the crash points use it too);
    ``test_backfill`` keeps the CLI itself under test."""
    body: dict[str, Any] = {"dag_id": dag_id, "from_date": f"{first}T00:00:00Z", "to_date": f"{last}T00:00:00Z",
                            "reprocess_behavior": "completed", "max_active_runs": max_active_runs}
    if conf is not None:
        body["dag_run_conf"] = conf
    api.send("POST", "/backfills", body)


def wait_idle(api, dag_id: str, timeout: float = 120) -> None:
    """Airflow allows one running backfill per DAG: wait until the previous one is completed."""
    deadline = time.monotonic() + timeout
    while [b for b in api.backfills(dag_id) if not b.get("completed_at")]:
        assert time.monotonic() < deadline, f"a backfill of {dag_id} is still running after {timeout}s"
        time.sleep(1)


def wait_runs(api, dag_id: str, day_list: list[str], since: float, timeout: float) -> dict[str, dict[str, Any]]:
    """day -> its backfill run queued after ``since`` once every one is success/failed; then the backfill is done."""
    deadline = time.monotonic() + timeout
    while True:
        runs = {r["logical_date"][:10]: r for r in api.dag_runs(dag_id, run_type="backfill")
                if r["logical_date"][:10] in day_list and ts(r.get("queued_at")) >= since}
        if len(runs) == len(day_list) and all(r["state"] in ("success", "failed") for r in runs.values()):
            wait_idle(api, dag_id)
            return runs
        states = {d: r["state"] for d, r in runs.items()}
        assert time.monotonic() < deadline, f"{dag_id} runs not finished after {timeout}s: {states}"
        time.sleep(2)


P = TypeVar("P", bound="BackgroundProbe")


class BackgroundProbe:
    """Runs ``_poll`` every ``interval`` seconds in a thread while the ``with`` block lasts, until ``_done()``;
    a failed poll is skipped (the next one counts)."""

    interval: float
    _stop: threading.Event

    def _poll(self) -> None:
        raise NotImplementedError

    def _done(self) -> bool:
        return False

    def _loop(self) -> None:
        while not self._stop.is_set() and not self._done():
            with contextlib.suppress(Exception):
                self._poll()
            self._stop.wait(self.interval)

    def __enter__(self: P) -> P:
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


@dataclass
class ConcurrencyProbe(BackgroundProbe):
    """Polls Druid's task lists in a thread: the most supervisors of these days seen at once, per state set."""

    druid_url: str
    day_list: list[str]
    interval: float = 0.5
    max_running: int = 0
    max_in_flight: int = 0
    polls: int = 0
    seen: set[str] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    datasource: str = DATASOURCE

    def _poll(self) -> None:
        prefixes = tuple(id_prefix(d, self.datasource) for d in self.day_list)
        by_state = {s: [t["id"] for t in supervisors(self.druid_url, s, self.datasource)
                        if t["id"].startswith(prefixes)] for s in IN_FLIGHT}
        self.max_running = max(self.max_running, len(by_state["running"]))
        self.max_in_flight = max(self.max_in_flight, len({i for ids in by_state.values() for i in ids}))
        self.seen.update(i for ids in by_state.values() for i in ids)
        self.polls += 1



def day_counts(druid, day: str, datasource: str = DATASOURCE) -> dict[str, Any]:
    """The generator's three numbers for one day of the deployment's datasource (tests/druid_sql.py)."""
    return druid_sql.day_counts(druid, datasource, day)
