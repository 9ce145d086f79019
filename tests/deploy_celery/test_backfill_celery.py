"""A 5-day ``airflow backfill create`` on the CeleryExecutor with two triggerers: every run green with the
generator's counts, Druid never running more of our ingestions than the ``druid_ingest`` pool admits, one Druid
task per day. The DAG is example_druid_daily's ingestion into a datasource of its own (dags/celery_scale.py)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.deploy.helpers import (
    BackgroundProbe,
    ConcurrencyProbe,
    backfill,
    day_counts,
    day_tasks,
    days,
    show_tasks,
    ts,
    wait_runs,
)

DAG_ID = "celery_druid_daily"
INGEST = "ingest_events_web"
DATASOURCE = "events_web_celery"
DAYS = days("2026-11-10", 5)


@dataclass
class TriggererProbe(BackgroundProbe):
    """Which triggerer held each day's deferred wait (trigger.triggerer_id -> job.hostname), polled from the
    metadata DB: the rows vanish once a trigger fires, so only a probe sees them."""

    db: Any
    interval: float = 0.5
    seen: dict[str, set[str]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def _poll(self) -> None:
        sql = ("SELECT to_char(dr.logical_date AT TIME ZONE 'UTC', 'YYYY-MM-DD'), j.hostname FROM task_instance ti "
               "JOIN dag_run dr ON dr.dag_id = ti.dag_id AND dr.run_id = ti.run_id "
               "JOIN trigger t ON t.id = ti.trigger_id JOIN job j ON j.id = t.triggerer_id "
               "WHERE ti.dag_id = %s AND ti.task_id = %s")
        for day, host in self.db(sql, DAG_ID, INGEST):
            self.seen.setdefault(day, set()).add(host)


@pytest.fixture(scope="module")
def celery_backfill(api, airflow, druid_url, key, db) -> dict[str, Any]:
    api.send("PATCH", f"/dags/{DAG_ID}", {"is_paused": False})  # backfill runs start only for unpaused DAGs
    since = time.time() - 1
    t0 = time.monotonic()
    with ConcurrencyProbe(druid_url, DAYS, datasource=DATASOURCE) as probe, TriggererProbe(db) as held:
        backfill(airflow, DAG_ID, DAYS[0], DAYS[-1], conf={"idempotency_key": key}, max_active_runs=5)
        runs = wait_runs(api, DAG_ID, DAYS, since, timeout=600)
    wall = time.monotonic() - t0
    pool = api.get("/pools/druid_ingest")
    print(f"\n[celery] 5-day backfill on Celery: {wall:.0f}s wall; Druid supervisors at once: max running "
          f"{probe.max_running}, max pending+waiting+running {probe.max_in_flight} ({probe.polls} polls); "
          f"pool {pool['slots']} slots")
    print(f"[celery] deferred waits by triggerer: {dict(sorted((d, sorted(h)) for d, h in held.seen.items()))}")
    return {"runs": runs, "since": since, "probe": probe, "pool": pool, "held": held.seen}


def test_celery_backfill_green_with_generator_counts_pool_cap_and_one_task_per_day(
    celery_backfill, api, druid, druid_url, expected
):
    runs, probe, pool = celery_backfill["runs"], celery_backfill["probe"], celery_backfill["pool"]
    assert {d: r["state"] for d, r in runs.items()} == dict.fromkeys(DAYS, "success")
    for day in DAYS:
        assert day_counts(druid, day, DATASOURCE) == expected[day], day
    tis = {d: api.task_instances(DAG_ID, r["dag_run_id"])[INGEST] for d, r in runs.items()}
    cap = pool["slots"] // 3  # one ingestion of the example spec takes 3 slots (supervisor + 2 workers)
    assert pool["include_deferred"] is True and {t["pool_slots"] for t in tis.values()} == {3} and cap == 2
    # the pool's promise is the cap; whether the scheduler fills it is throughput (a loaded machine's Celery
    # workers once picked the second day up only after the first ended: 1 in flight), measured in benchmarks/
    assert 1 <= probe.max_in_flight <= cap, f"{probe.max_in_flight} ingestions in flight, the pool admits {cap}"
    created = day_tasks(druid_url, DAYS, celery_backfill["since"], DATASOURCE)
    show_tasks("5-day Celery backfill", created)
    assert len(created) == 5 and {t["id"] for t in created} == probe.seen, (created, probe.seen)
    assert len({t["id"][:len("ingest_events_web_celery_20261110-20261111")] for t in created}) == 5  # one per day
    for day, ti in sorted(tis.items()):  # which worker ran each day's submit, and for how long
        print(f"[celery] {day}: ingest on {ti.get('hostname')} {ti['start_date'][11:19]}..{ti['end_date'][11:19]} "
              f"({ts(ti['end_date']) - ts(ti['start_date']):.0f}s), try {ti['try_number']}")
