"""Crash points on the worker side, on the real scheduler and the real Druid: the task process SIGKILLed inside
the window "Druid accepted the submit, the XCom is not pushed", and a task cleared after Druid's SUCCESS. Both
re-runs must adopt the one Druid task (its id is derived from the spec), never ingest a second time.

How the kill window is made reliable (no hook in the package): the crash DAG's connection points at the test
server's relay (``crash_server.py``). It forwards the submit POST to Druid and holds Druid's answer; while it
holds, Druid lists the task and the worker is still blocked reading the answer, so no XCom can exist. The test
finds the worker by the TCP peer of the held request (psutil), checks it is the task process of this task
instance (``airflow worker -- <ti id>``), and SIGKILLs it; then it releases the answer into a closed socket.
"""

from __future__ import annotations

import os
import signal
import time
from urllib.parse import urlsplit

import psutil

from tests.deploy.crash_helpers import CRASH_DAG, DONE

DAY_KILL = "2026-11-23"
DAY_CLEAR = "2026-11-24"


def _process_on(client_port: int, server_port: int) -> psutil.Process:
    """The local process whose TCP connection to the relay uses ``client_port``."""
    for conn in psutil.net_connections(kind="tcp"):
        if (conn.pid and conn.laddr and conn.raddr and conn.laddr.port == client_port
                and conn.raddr.port == server_port):
            return psutil.Process(conn.pid)
    raise AssertionError(f"no process holds the TCP connection 127.0.0.1:{client_port} -> :{server_port}")


def test_worker_killed_after_submit_before_xcom_push_retry_adopts(crash):
    day = DAY_KILL
    print(f"\n[crash] point 1: SIGKILL the task process after Druid accepted the submit, before the XCom push "
          f"({CRASH_DAG} {day})")
    crash.show("before", day)
    t0 = time.monotonic()
    crash.server.hold_next_submit()
    run, since, _ = crash.start(CRASH_DAG, day, "kill")
    held = crash.server.wait_held_submit(180)
    ti = crash.ti(CRASH_DAG, run)
    assert crash.xcom_task_id(CRASH_DAG, run) is None, "the XCom exists already: not inside the window"
    assert crash.druid.status(held.task_id).state in ("RUNNING", "SUCCESS"), "Druid does not have the task"
    proc = _process_on(held.client_port, urlsplit(crash.server.url).port)
    title = " ".join(proc.cmdline()).strip()
    assert ti["id"] in title and ti["state"] == "running", (title, ti["id"], ti["state"])
    crash.show("at the kill: Druid has the task, the worker has not seen the answer", day, since)
    os.kill(proc.pid, signal.SIGKILL)
    killed_at = time.monotonic() - t0
    crash.server.release_submit()
    first_try = ti["try_number"]
    ti = crash.wait_ti(CRASH_DAG, run, lambda t: t["try_number"] > first_try and t["state"] in DONE, 300,
                       "the retry after the kill ended")
    done = crash.wait_run_done(CRASH_DAG, run, 120)
    print(f"  killed pid {proc.pid} ({title}) at +{killed_at:.1f}s; run {done['state']} at "
          f"+{time.monotonic() - t0:.1f}s, try {ti['try_number']}")
    success = crash.check_outcome(day, since)

    assert done["state"] == "success" and ti["state"] == "success", (done["state"], ti["state"])
    assert success["id"] == held.task_id  # the one task Druid accepted before the kill
    assert crash.xcom_task_id(CRASH_DAG, run) == held.task_id
    assert "Submitted Druid task" not in crash.task_log(CRASH_DAG, run, first_try)  # killed before it logged
    assert f"Adopted existing Druid task {held.task_id}" in crash.task_log(CRASH_DAG, run, ti["try_number"])


def test_clear_after_druid_success_adopts_without_ingesting_again(crash):
    day = DAY_CLEAR
    print(f"\n[crash] point 3: clear the task after Druid SUCCESS ({CRASH_DAG} {day})")
    crash.show("before", day)
    run, since, _ = crash.start(CRASH_DAG, day, "clear")
    first = crash.wait_run_done(CRASH_DAG, run, 300)
    assert first["state"] == "success", first["state"]
    original = crash.check_outcome(day, since, "after the first run")
    ti = crash.ti(CRASH_DAG, run)
    t0 = time.monotonic()
    crash.api.clear_task(CRASH_DAG, run["dag_run_id"], "ingest")
    again = crash.wait_ti(CRASH_DAG, run, lambda t: t["try_number"] > ti["try_number"] and t["state"] in DONE,
                          240, "the cleared task ran again")
    done = crash.wait_run_done(CRASH_DAG, run, 120)
    print(f"  cleared after SUCCESS; re-run {done['state']} in {time.monotonic() - t0:.1f}s "
          f"(try {again['try_number']})")
    after = crash.check_outcome(day, since)

    assert done["state"] == "success" and again["state"] == "success"
    assert after["id"] == original["id"] and len(crash.day_tasks(day, since)) == 1  # no second ingestion
    assert f"Adopted existing Druid task {original['id']} (state SUCCESS" in crash.task_log(
        CRASH_DAG, run, again["try_number"])
