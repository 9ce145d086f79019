"""Three one-shot ingestions deferred in one real triggerer are served by its shared poller: their status reads go
out as bulk ``POST /druid/indexer/v1/taskStatus`` calls (counted from what each trigger logs), and all three end
green with the generator's counts."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tests.deploy.helpers import DAILY, INGEST, backfill_api, day_counts, days, unpause, wait_idle, wait_runs

DAYS = days("2026-11-16", 3)
SHARED = re.compile(r"(\d+) bulk status call\(s\) answering (\d+) status read\(s\), (\d+) single status GET")


def test_three_deferred_ingestions_share_bulk_status_calls(api, druid, deploy_env, expected, key):
    wait_idle(api, DAILY)
    unpause(api, DAILY)
    since = time.time() - 1
    backfill_api(api, DAILY, DAYS[0], DAYS[-1], conf={"idempotency_key": f"{key}-bulk"}, max_active_runs=3)
    runs = wait_runs(api, DAILY, DAYS, since, timeout=300)
    assert {d: r["state"] for d, r in runs.items()} == dict.fromkeys(DAYS, "success")
    for day in DAYS:
        assert day_counts(druid, day) == expected[day], day
    logs = Path(deploy_env["AIRFLOW_HOME"]) / "logs" / f"dag_id={DAILY}"
    seen = []
    for run in runs.values():
        folder = logs / f"run_id={run['dag_run_id']}" / f"task_id={INGEST}"
        trigger_logs = sorted(folder.glob("attempt=*.log.trigger.*.log"), key=lambda p: p.stat().st_mtime)
        assert trigger_logs, f"{run['dag_run_id']}: the ingestion never deferred (no trigger log in {folder})"
        found = SHARED.findall(trigger_logs[-1].read_text())
        assert found, f"{trigger_logs[-1]}: no shared-reads line"
        seen.append(tuple(int(n) for n in found[-1]))
    bulk, answered, single = max(seen)  # cumulative on the triggerer's poller: the last trigger saw the most
    print(f"\n[deploy] 3 deferred ingestions: the triggerer's poller made {bulk} bulk status call(s) answering "
          f"{answered} status read(s), {single} single GET(s); per trigger: {seen}")
    assert bulk >= 1 and single == 0  # every look after a trigger's first went through the bulk endpoint
    assert answered >= bulk
