"""``example_druid_split`` (submit -> task sensor -> handoff sensor -> count) green for a day under the real scheduler
and triggerer, each step starting after the previous one ended, and the count reading complete data."""

from __future__ import annotations

import itertools
import time

from tests.deploy.helpers import SPLIT, backfill_api, day_counts, ts, unpause, wait_idle, wait_runs

DAY = "2026-11-22"
STEPS = ("submit", "wait_for_task", "wait_for_handoff", "count_rows")


def test_split_dag_green_for_a_day(api, druid, expected):
    wait_idle(api, SPLIT)
    unpause(api, SPLIT)
    since = time.time() - 1
    t0 = time.monotonic()
    backfill_api(api, SPLIT, DAY, DAY)
    run = wait_runs(api, SPLIT, [DAY], since, timeout=240)[DAY]
    tis = api.task_instances(SPLIT, run["dag_run_id"])
    steps = ", ".join(f"{s} {tis[s]['state']} {tis[s]['start_date'][11:19]}-{tis[s]['end_date'][11:19]}" for s in STEPS)
    print(f"\n[deploy] {SPLIT} {DAY}: {run['state']} in {time.monotonic() - t0:.0f}s; {steps}")
    assert run["state"] == "success"
    assert {s: tis[s]["state"] for s in STEPS} == dict.fromkeys(STEPS, "success")
    for before, after in itertools.pairwise(STEPS):
        assert ts(tis[after]["start_date"]) >= ts(tis[before]["end_date"]), (before, after)
    assert api.xcom(SPLIT, run["dag_run_id"], "count_rows") == expected[DAY]["rollup_rows"]
    assert day_counts(druid, DAY) == expected[DAY]
