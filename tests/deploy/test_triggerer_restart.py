"""The triggerer is killed (SIGKILL to its process group, as a crashed pod) while the ingest task is deferred on a
running Druid task, and restarted: the new triggerer resumes the same wait from the trigger row, the run goes green,
and Druid holds exactly one task for the day (no resubmission, no Airflow retry)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.deploy.conftest import HARNESS
from tests.deploy.helpers import (
    DAILY,
    IN_FLIGHT,
    INGEST,
    backfill_api,
    day_counts,
    day_tasks,
    show_tasks,
    supervisors,
    ts,
    unpause,
    wait_idle,
    wait_runs,
)

DAY = "2026-11-20"


def _triggerer_pid(env: dict[str, str]) -> int:
    run_dir = Path(env["AIRFLOW_HOME"]).parent / "run"
    return int((run_dir / "triggerer.pid").read_text())


def test_triggerer_killed_mid_wait_resumes_without_a_second_druid_task(api, deploy_env, druid, druid_url,
                                                                        key, expected):
    print(f"\n[crash] point 2: SIGKILL the triggerer mid-wait and start it again ({DAILY} {DAY})")
    show_tasks(f"{DAY}, before", day_tasks(druid_url, [DAY]))
    wait_idle(api, DAILY)
    unpause(api, DAILY)
    since = time.time() - 1
    backfill_api(api, DAILY, DAY, DAY, conf={"idempotency_key": f"{key}-restart"})
    t0 = time.monotonic()
    events: list[tuple[float, str]] = []

    def mark(what: str) -> None:
        events.append((time.monotonic() - t0, what))

    # wait until the ingest task is deferred and its Druid task is running: then the triggerer holds the wait
    while True:
        run = next((r for r in api.dag_runs(DAILY, run_type="backfill")
                    if r["logical_date"][:10] == DAY and ts(r["queued_at"]) >= since), None)
        ti = api.task_instances(DAILY, run["dag_run_id"]).get(INGEST, {}) if run else {}
        druid_id = api.xcom(DAILY, run["dag_run_id"], INGEST, "druid_task_id") if run else None
        if ti.get("state") == "deferred" and druid_id and druid.status(druid_id).state == "RUNNING":
            old_triggerer, try_number = (ti.get("triggerer_job") or {}).get("id"), ti["try_number"]
            if old_triggerer:
                break
        assert time.monotonic() - t0 < 120, f"ingest never deferred on a running Druid task: {ti.get('state')}"
        time.sleep(0.5)
    mark(f"deferred on Druid task {druid_id} (RUNNING), trigger held by triggerer job {old_triggerer}, "
         f"trigger {(ti.get('trigger') or {}).get('classpath', '?').rsplit('.', 1)[-1]}")

    show_tasks(f"{DAY}, at the kill", day_tasks(druid_url, [DAY], since))
    pid = _triggerer_pid(deploy_env)
    os.killpg(pid, signal.SIGKILL)
    mark(f"SIGKILL triggerer process group {pid}")
    subprocess.run(["bash", str(HARNESS), "start"], check=True, capture_output=True, timeout=300)
    mark("triggerer restarted (airflow.sh start: it heartbeats)")

    new_triggerer, druid_done = None, None
    while True:
        ti = api.task_instances(DAILY, run["dag_run_id"])[INGEST]
        holder = (ti.get("triggerer_job") or {}).get("id")
        if new_triggerer is None and holder and holder != old_triggerer:
            new_triggerer = holder
            mark(f"trigger picked up by the new triggerer job {holder}")
        if druid_done is None and druid.status(druid_id).is_terminal:
            druid_done = druid.status(druid_id).state
            mark(f"Druid task {druid_done}")
        if ti["state"] in ("success", "failed", "up_for_retry"):
            mark(f"ingest task {ti['state']} (try {ti['try_number']})")
            break
        assert time.monotonic() - t0 < 240, f"ingest still {ti['state']} after the restart"
        time.sleep(0.5)
    runs = wait_runs(api, DAILY, [DAY], since, timeout=120)
    print("[deploy] triggerer restart timeline:\n" + "\n".join(f"  +{t:5.1f}s {what}" for t, what in events))
    after = day_tasks(druid_url, [DAY], since)
    show_tasks(f"{DAY}, after", after)

    assert ti["state"] == "success" and ti["try_number"] == try_number, ti  # resumed, not failed and retried
    assert runs[DAY]["state"] == "success"
    assert api.xcom(DAILY, run["dag_run_id"], INGEST, "druid_task_id") == druid_id
    assert [(t["id"], t["statusCode"]) for t in after] == [(druid_id, "SUCCESS")]  # no second Druid task
    assert not [t["id"] for s in IN_FLIGHT for t in supervisors(druid_url, s) if t["id"] == druid_id]
    assert day_counts(druid, DAY) == expected[DAY]
