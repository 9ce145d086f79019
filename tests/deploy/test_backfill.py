"""A 5-day ``airflow backfill create`` of ``example_druid_daily`` run by the real scheduler and triggerer: every run
green with the generator's counts, Druid never running more ingestions than the pool admits, the downstream count
starting only after the handoff gate, and a ``--reprocess-behavior completed`` re-run adopting every Druid task."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.deploy.helpers import (
    DAILY,
    INGEST,
    ConcurrencyProbe,
    backfill,
    day_counts,
    day_tasks,
    days,
    supervisors,
    ts,
    wait_idle,
    wait_runs,
)

DAYS = days("2026-11-10", 5)


@pytest.fixture(scope="module")
def first_backfill(api, airflow, druid_url, key) -> dict[str, Any]:
    wait_idle(api, DAILY)
    airflow("dags", "unpause", DAILY)  # backfill runs start only for unpaused DAGs
    since = time.time() - 1
    t0 = time.monotonic()
    # --max-active-runs 5: all 5 runs are active at once, so only the druid_ingest pool can hold ingestions back
    with ConcurrencyProbe(druid_url, DAYS) as probe:
        backfill(airflow, DAILY, DAYS[0], DAYS[-1], conf={"idempotency_key": key}, max_active_runs=5)
        runs = wait_runs(api, DAILY, DAYS, since, timeout=360)
    wall = time.monotonic() - t0
    pool = api.get("/pools/druid_ingest")
    print(f"\n[deploy] 5-day backfill: {wall:.0f}s wall; Druid supervisors at once: max running {probe.max_running}, "
          f"max pending+waiting+running {probe.max_in_flight} ({probe.polls} polls); pool {pool['slots']} slots")
    return {"runs": runs, "since": since, "probe": probe, "pool": pool, "wall": wall}


def test_backfill_runs_green_with_generator_counts_and_pool_cap(first_backfill, api, druid, druid_url, expected):
    runs, probe, pool = first_backfill["runs"], first_backfill["probe"], first_backfill["pool"]
    assert {d: r["state"] for d, r in runs.items()} == dict.fromkeys(DAYS, "success")
    for day in DAYS:
        assert day_counts(druid, day) == expected[day], day
    ti_slots = {api.task_instances(DAILY, r["dag_run_id"])[INGEST]["pool_slots"] for r in runs.values()}
    assert pool["include_deferred"] is True and ti_slots == {3}, (pool, ti_slots)
    cap = pool["slots"] // 3
    assert cap == 2
    # the pool admits `cap` ingestions: Druid never saw more of ours submitted (pending, waiting or running)
    assert probe.max_in_flight <= cap, f"{probe.max_in_flight} ingestions in flight, pool admits {cap}"
    assert probe.max_running >= 1 and probe.polls > 20
    # one Druid task per day, and the probe saw every one of them while it was in flight
    created = day_tasks(druid_url, DAYS, first_backfill["since"])
    assert {t["id"] for t in created} == probe.seen and len(created) == 5, (created, probe.seen)


def test_downstream_count_starts_only_after_the_handoff_gate(first_backfill, api, expected):
    """``count_rows`` starts after ``ingest`` ended (the gate passed), and what it read is already complete."""
    for day, run in first_backfill["runs"].items():
        tis = api.task_instances(DAILY, run["dag_run_id"])
        ingest, count = tis[INGEST], tis["count_rows"]
        assert ts(count["start_date"]) >= ts(ingest["end_date"]), (day, ingest["end_date"], count["start_date"])
        seen = api.xcom(DAILY, run["dag_run_id"], "count_rows")
        ours = api.xcom(DAILY, run["dag_run_id"], INGEST, "druid_task_id")  # no later run: its own data is read
        assert seen == {"rollup_rows": expected[day]["rollup_rows"], "input_rows": expected[day]["rows"],
                        "served_by_task": ours}, day
        gap = ts(count["start_date"]) - ts(ingest["end_date"])
        print(f"[deploy] {day}: ingest ended {ingest['end_date'][11:23]}, count_rows started "
              f"{count['start_date'][11:23]} (+{gap:.2f}s) and read {seen}")


def test_rerun_reprocess_completed_adopts_every_task(first_backfill, api, airflow, druid, druid_url, key, expected):
    first = first_backfill["runs"]
    ids_before = {d: api.xcom(DAILY, r["dag_run_id"], INGEST, "druid_task_id") for d, r in first.items()}
    mine_before = day_tasks(druid_url, DAYS)
    all_before = supervisors(druid_url)
    since = time.time() - 1
    t0 = time.monotonic()
    backfill(airflow, DAILY, DAYS[0], DAYS[-1], conf={"idempotency_key": key}, max_active_runs=5)
    runs = wait_runs(api, DAILY, DAYS, since, timeout=240)
    mine_after, all_after = day_tasks(druid_url, DAYS), supervisors(druid_url)
    print(f"[deploy] re-run (--reprocess-behavior completed): {time.monotonic() - t0:.0f}s; Druid supervisors of "
          f"these days {len(mine_before)} -> {len(mine_after)}, of the datasource {len(all_before)} -> "
          f"{len(all_after)}")
    assert {d: r["state"] for d, r in runs.items()} == dict.fromkeys(DAYS, "success")
    assert {d: api.xcom(DAILY, r["dag_run_id"], INGEST, "druid_task_id") for d, r in runs.items()} == ids_before
    assert sorted(t["id"] for t in mine_after) == sorted(t["id"] for t in mine_before)
    for day, run in runs.items():
        assert api.task_instances(DAILY, run["dag_run_id"])[INGEST]["try_number"] >= 2, day  # it did run again
        assert day_counts(druid, day) == expected[day], day
