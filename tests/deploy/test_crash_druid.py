"""Crash points while Druid works, on the real scheduler, triggerer and Druid: Druid FAILs a task and Airflow
retries it (the input fixed in between), a user marks the deferred task failed while Druid runs, and
``execution_timeout`` fires while Druid runs. The Druid task is held RUNNING by the test server, which answers
the day's input with its first row and keeps the rest until released (``crash_server.py``)."""

from __future__ import annotations

import time

from tests.deploy.crash_helpers import CRASH_DAG, DONE, TIMEOUT_DAG

DAY_FAIL = "2026-11-25"
DAY_MARK = "2026-11-26"
DAY_TIMEOUT = "2026-11-27"
DAY_CLEAR_RUNNING = "2026-11-29"
SHUTDOWN_MSG = "Shutdown request from user"  # Druid's errorMsg of a task stopped by POST .../shutdown


def _trigger_log(crash, dag_id, run, try_number):
    folder = crash.logs / f"dag_id={dag_id}" / f"run_id={run['dag_run_id']}" / "task_id=ingest"
    return "".join(p.read_text(errors="replace") for p in folder.glob(f"attempt={try_number}.log.trigger.*"))


def _running_in_druid(crash, dag_id, run, day):
    """Wait until the task is deferred, the triggerer runs its trigger (its log says "starting") and the Druid task
    is RUNNING, reading the held input.

    The trigger must be running: a deferred task marked failed before the triggerer has started its trigger runs
    no provider code at all in Airflow 3.3 (the row is deleted, ``on_kill`` is never called), so nothing can shut
    the Druid task down (docs/deployment.md, section 9)."""

    def look():
        ti = crash.ti(dag_id, run)
        druid_id = crash.xcom_task_id(dag_id, run)
        if (ti.get("state") == "deferred" and druid_id and crash.server.reads(day) > 0
                and "starting" in _trigger_log(crash, dag_id, run, ti["try_number"])
                and crash.druid.status(druid_id).state == "RUNNING"):
            return ti, druid_id
        return None

    return crash.wait_for(look, 240, f"{dag_id} {day} deferred on a RUNNING Druid task")


def test_druid_fails_the_task_airflow_retries_with_the_fixed_input(crash):
    day = DAY_FAIL
    print(f"\n[crash] point 4: Druid FAILs the task (malformed input), Airflow retries after the input is fixed "
          f"({CRASH_DAG} {day})")
    crash.show("before", day)
    crash.server.set_mode(day, "bad")
    run, since, first_try = crash.start(CRASH_DAG, day, "fail")
    failed = crash.wait_for(lambda: [t for t in crash.day_tasks(day, since) if t["statusCode"] == "FAILED"], 240,
                            "Druid FAILed the first attempt")[0]
    crash.server.set_mode(day, "ok")  # the input is fixed before the retry's task reads it
    crash.show("after Druid failed attempt 0 (input fixed now)", day, since)
    ti = crash.wait_ti(CRASH_DAG, run, lambda t: t["try_number"] > first_try and t["state"] in DONE, 300,
                       "the Airflow retry ended")
    done = crash.wait_run_done(CRASH_DAG, run, 120)
    success = crash.check_outcome(day, since)
    crash.report_races(CRASH_DAG, run)
    # a try past the first retry is there only when Airflow's race failed one (seen once in CI: the retry's
    # trigger fired 5 s after its deferral, before the scheduler saw the deferral's workload end)
    assert ti["try_number"] == first_try + 1 or crash.airflow_races(CRASH_DAG, run), ti["try_number"]

    assert done["state"] == "success" and ti["state"] == "success", (done["state"], ti["state"])
    assert success["id"] == failed["id"] + "_r1"  # the retry submitted the next attempt id
    assert "Unable to parse" in failed["errorMsg"] or "parse" in failed["errorMsg"].lower(), failed["errorMsg"]
    assert "an Airflow retry submits the next attempt" in crash.task_log(CRASH_DAG, run, first_try)
    assert f"Submitted Druid task {success['id']} (attempt 1)" in crash.task_log(CRASH_DAG, run, first_try + 1)


def test_mark_failed_while_druid_runs_shuts_the_druid_task_down(crash):
    day = DAY_MARK
    print(f"\n[crash] point 5: mark the deferred task failed while Druid runs ({CRASH_DAG} {day})")
    crash.show("before", day)
    crash.server.set_mode(day, "hold")
    run, since, _ = crash.start(CRASH_DAG, day, "mark")
    ti, druid_id = _running_in_druid(crash, CRASH_DAG, run, day)
    crash.show("while Druid runs (input held)", day, since)
    t0 = time.monotonic()
    crash.api.mark_task(CRASH_DAG, run["dag_run_id"], "ingest", "failed")
    stopped = crash.wait_for(lambda: crash.druid.status(druid_id).state == "FAILED", 90,
                             f"Druid task {druid_id} shut down after mark failed")
    shut_after = time.monotonic() - t0
    done = crash.wait_run_done(CRASH_DAG, run, 120)
    crash.show(f"after mark failed (Druid task FAILED after {shut_after:.1f}s; run {done['state']})", day, since)
    assert stopped and done["state"] == "failed", done["state"]
    assert crash.druid.status(druid_id).error_msg == SHUTDOWN_MSG
    assert druid_id not in crash.running()
    trigger_log = _trigger_log(crash, CRASH_DAG, run, ti["try_number"])
    assert "Trigger cancelled by user action, invoking on_kill" in trigger_log, trigger_log[-2000:]
    assert f"Asked Druid to shut down task {druid_id}" in trigger_log

    # the user re-runs the day later: the input flows, a clear submits the next attempt
    crash.server.release(day)
    crash.api.clear_task(CRASH_DAG, run["dag_run_id"], "ingest")
    again = crash.wait_ti(CRASH_DAG, run, lambda t: t["try_number"] > ti["try_number"] and t["state"] in DONE, 300,
                          "the cleared task ran again")
    done = crash.wait_run_done(CRASH_DAG, run, 120)
    success = crash.check_outcome(day, since)
    assert done["state"] == "success" and again["state"] == "success"
    assert success["id"] == druid_id + "_r1"


def test_execution_timeout_while_druid_runs_shuts_it_down_then_retry(crash):
    day = DAY_TIMEOUT
    print(f"\n[crash] point 6: execution_timeout (20 s) fires while Druid runs ({TIMEOUT_DAG} {day})")
    crash.show("before", day)
    crash.server.set_mode(day, "hold")
    run, since, _ = crash.start(TIMEOUT_DAG, day, "timeout")
    ti, druid_id = _running_in_druid(crash, TIMEOUT_DAG, run, day)
    t0 = time.monotonic()
    crash.show("while Druid runs (input held)", day, since)
    crash.wait_for(lambda: crash.druid.status(druid_id).state == "FAILED", 120,
                   f"Druid task {druid_id} shut down by the timeout")
    shut_after = time.monotonic() - t0
    crash.server.release(day)  # the retry's task reads the whole input
    crash.show(f"after the timeout (Druid task FAILED {shut_after:.1f}s after it was seen running)", day, since)
    retried = crash.wait_ti(TIMEOUT_DAG, run, lambda t: t["try_number"] > ti["try_number"] and t["state"] in DONE, 300,
                            "the retry after the timeout ended")
    done = crash.wait_run_done(TIMEOUT_DAG, run, 120)
    success = crash.check_outcome(day, since)

    first_log = crash.task_log(TIMEOUT_DAG, run, ti["try_number"])
    assert crash.druid.status(druid_id).error_msg == SHUTDOWN_MSG
    assert f"Shut down Druid task {druid_id}" in first_log, first_log[-2000:]
    assert done["state"] == "success" and retried["state"] == "success"
    assert success["id"] == druid_id + "_r1"


def test_clear_while_druid_runs_keeps_the_druid_task_for_the_next_try(crash):
    """Issue 27 item 5: a clear is how users re-run, so it must cost nothing. The cleared try's trigger is
    cancelled through on_kill; the task instance is no longer deferred (cleared, then scheduled/queued/running as
    the next try starts), so the Druid task must live: the next try adopts it and goes green, one Druid task, no
    retry spent (the try number moves by the clear only)."""
    day = DAY_CLEAR_RUNNING
    print(f"\n[crash] point 7: clear the deferred task while Druid runs ({CRASH_DAG} {day})")
    crash.show("before", day)
    crash.server.set_mode(day, "hold")
    run, since, _ = crash.start(CRASH_DAG, day, "clearrun")
    ti, druid_id = _running_in_druid(crash, CRASH_DAG, run, day)
    t0 = time.monotonic()
    crash.api.clear_task(CRASH_DAG, run["dag_run_id"], "ingest")
    nxt = ti["try_number"] + 1
    crash.wait_for(lambda: f"Adopted existing Druid task {druid_id}" in crash.task_log(CRASH_DAG, run, nxt), 240,
                   f"try {nxt} adopted {druid_id}")
    adopted_after = time.monotonic() - t0
    assert crash.druid.status(druid_id).state == "RUNNING"  # the cleared try's on_kill left it alone
    crash.server.release(day)
    again = crash.wait_ti(CRASH_DAG, run, lambda t: t["try_number"] >= nxt and t["state"] in DONE, 300,
                          "the cleared task's next try ended")
    done = crash.wait_run_done(CRASH_DAG, run, 120)
    success = crash.check_outcome(day, since)
    print(f"  cleared {adopted_after:.1f}s before try {nxt} adopted {druid_id}; run {done['state']}, try "
          f"{again['try_number']}")
    assert done["state"] == "success" and again["state"] == "success", (done["state"], again["state"])
    assert success["id"] == druid_id and len(crash.day_tasks(day, since)) == 1  # one Druid task, never shut down
    assert again["try_number"] == nxt or crash.airflow_races(CRASH_DAG, run), again["try_number"]  # no retry spent
    trigger_log = _trigger_log(crash, CRASH_DAG, run, ti["try_number"])
    assert f"Asked Druid to shut down task {druid_id}" not in trigger_log
