"""What the crash points share: the crash DAGs' runs, the Druid task list of a day (printed before and after each
point), and the checks every point ends with (one SUCCESS, no task left running, the generator's counts)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from tests.deploy.crash_server import CrashServer
from tests.deploy.helpers import show_tasks, ts, wait_idle

CRASH_DAG = "crash_ingest"
TIMEOUT_DAG = "crash_timeout"
TASK = "ingest"
DATASOURCE = "crash_events"
CONN_ID = "crash_druid"
LOGIN = "crash_user"
IN_FLIGHT = ("pending", "waiting", "running")
DONE = ("success", "failed")


@dataclass
class Crash:
    """One session's crash-point kit: the test server, the deployment's API and CLI, Druid, the known password."""

    server: CrashServer
    api: Any
    airflow: Callable[..., str]
    druid: Any
    druid_url: str
    env: dict[str, str]
    expected: dict[str, dict[str, Any]]
    key: str
    password: str

    @property
    def logs(self) -> Path:
        return Path(self.env["AIRFLOW_HOME"]) / "logs"

    def airflow_races(self, dag_id: str, run: dict[str, Any]) -> list[str]:
        """The scheduler's lines where Airflow's stale defer-exit race failed a try of this run: the executor's
        success for the deferral arrived after the trigger had already re-queued the task (apache/airflow#67287,
        #72716). A try failed so is Airflow's doing, not ours; the point's checks still hold on the next try."""
        log = Path(self.env["AIRFLOW_HOME"]).parent / "log" / "scheduler.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        return [line for line in text.splitlines() if "finished with state success, but the task instance's state "
                "attribute is" in line and f"{dag_id}.{TASK} {run['dag_run_id']} " in line]

    def report_races(self, dag_id: str, run: dict[str, Any]) -> None:
        for line in self.airflow_races(dag_id, run):
            print(f"  Airflow's stale defer-exit race failed a try (the next one adopts): {line[:240]}")

    def conf(self, suffix: str) -> dict[str, str]:
        return {"idempotency_key": f"{self.key}-{suffix}", "input_base": self.server.input_base}

    def start(self, dag_id: str, day: str, suffix: str) -> tuple[dict[str, Any], float, int]:
        """Backfill one day of a crash DAG: the run once it exists, when it was asked for (epoch s), and the
        try number its first try gets (a re-run of a day reuses the run, and its try numbers go on)."""
        wait_idle(self.api, dag_id)
        old = next((r for r in self.api.dag_runs(dag_id, run_type="backfill") if r["logical_date"][:10] == day), None)
        first_try = (self.ti(dag_id, old).get("try_number") or 0) + 1 if old else 1
        since = time.time() - 1
        # what `airflow backfill create --reprocess-behavior completed` sends, without a CLI start per point
        self.api.send("POST", "/backfills", {"dag_id": dag_id, "from_date": f"{day}T00:00:00Z",
                                             "to_date": f"{day}T00:00:00Z", "dag_run_conf": self.conf(suffix),
                                             "reprocess_behavior": "completed", "max_active_runs": 1})
        run = self.wait_for(lambda: self.run_of(dag_id, day, since), 60, f"{dag_id} run for {day}")
        return run, since, first_try

    def run_of(self, dag_id: str, day: str, since: float) -> dict[str, Any] | None:
        return next((r for r in self.api.dag_runs(dag_id, run_type="backfill")
                     if r["logical_date"][:10] == day and ts(r["queued_at"]) >= since), None)

    def ti(self, dag_id: str, run: dict[str, Any]) -> dict[str, Any]:
        return self.api.task_instances(dag_id, run["dag_run_id"]).get(TASK, {})

    def wait_ti(self, dag_id: str, run: dict[str, Any], ok: Callable[[dict[str, Any]], bool], timeout: float,
                what: str) -> dict[str, Any]:
        def look() -> dict[str, Any] | None:
            ti = self.ti(dag_id, run)
            return ti if ti and ok(ti) else None

        try:
            return self.wait_for(look, timeout, what)
        except AssertionError as exc:
            ti = self.ti(dag_id, run)
            raise AssertionError(f"{exc}; task instance now: state {ti.get('state')}, try {ti.get('try_number')}")\
                from None

    def wait_run_done(self, dag_id: str, run: dict[str, Any], timeout: float) -> dict[str, Any]:
        def look() -> dict[str, Any] | None:
            now = self.api.get(f"/dags/{dag_id}/dagRuns/{run['dag_run_id']}")
            return now if now["state"] in DONE else None

        done = self.wait_for(look, timeout, f"{run['dag_run_id']} success/failed")
        wait_idle(self.api, dag_id)
        return done

    def xcom_task_id(self, dag_id: str, run: dict[str, Any]) -> str | None:
        return self.api.xcom(dag_id, run["dag_run_id"], TASK, "druid_task_id")

    def task_log(self, dag_id: str, run: dict[str, Any], try_number: int) -> str:
        folder = self.logs / f"dag_id={dag_id}" / f"run_id={run['dag_run_id']}" / f"task_id={TASK}"
        return "".join(p.read_text(errors="replace") for p in sorted(folder.glob(f"attempt={try_number}.log*")))

    @staticmethod
    def wait_for(look: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            got = look()
            if got:
                return got
            assert time.monotonic() < deadline, f"not seen within {timeout:.0f}s: {what}"
            time.sleep(0.5)

    # ---- Druid's view of a day --------------------------------------------------------------------------

    def day_tasks(self, day: str, since: float = 0.0) -> list[dict[str, Any]]:
        """The crash datasource's supervisors for this day (created at/after ``since``), oldest first."""
        tasks = requests.get(f"{self.druid_url}/druid/indexer/v1/tasks", params={"datasource": DATASOURCE},
                             timeout=30).json()
        mine = [t for t in tasks if t.get("type") == "index_parallel" and t["id"].startswith(id_prefix(day))
                and ts(t["createdTime"]) >= since]
        return sorted(mine, key=lambda t: t["createdTime"])

    def show(self, label: str, day: str, since: float = 0.0) -> list[dict[str, Any]]:
        tasks = self.day_tasks(day, since)
        show_tasks(f"{day}, {label}", tasks)
        return tasks

    def running(self) -> list[str]:
        """Ids of the crash datasource's tasks Druid still lists as pending, waiting or running."""
        ids = []
        for state in IN_FLIGHT:
            ids += [t["id"] for t in requests.get(f"{self.druid_url}/druid/indexer/v1/tasks",
                                                  params={"datasource": DATASOURCE, "state": state},
                                                  timeout=30).json()]
        return ids

    def counts(self, day: str) -> dict[str, Any]:
        t = {"type": "TIMESTAMP", "value": f"{day} 00:00:00"}
        rows = self.druid.sql('SELECT COUNT(*) AS "rollup_rows", SUM("rows") AS "rows", SUM("bytes") AS '
                              f"\"sum_resp_bytes\" FROM \"{DATASOURCE}\" WHERE __time >= ? AND __time < ? "
                              "+ INTERVAL '1' DAY", [t, t])
        return rows[0] if rows else {}

    def check_outcome(self, day: str, since: float, label: str = "after") -> dict[str, Any]:
        """Every point ends here: exactly one SUCCESS among the day's new Druid tasks (the others FAILED: failed
        or shut down), none of the datasource's tasks left in flight, Druid SQL equal to the generator's numbers.
        Returns the SUCCESS task."""
        tasks = self.show(label, day, since)
        states = [t["statusCode"] for t in tasks]
        assert states.count("SUCCESS") == 1, f"{day}: want exactly one SUCCESS Druid task, got {states}"
        assert set(states) <= {"SUCCESS", "FAILED"}, states
        assert not self.running(), f"Druid tasks of {DATASOURCE} left in flight: {self.running()}"
        assert self.counts(day) == self.expected[day], (day, self.counts(day), self.expected[day])
        return next(t for t in tasks if t["statusCode"] == "SUCCESS")


def id_prefix(day: str) -> str:
    start = dt.date.fromisoformat(day)
    return f"ingest_{DATASOURCE}_{start:%Y%m%d}-{start + dt.timedelta(days=1):%Y%m%d}_"
