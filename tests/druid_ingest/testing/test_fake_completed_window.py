"""The fake lists completed tasks as Druid does by creation time: without ``createdTimeInterval`` only those created
within the last day (``recentlyFinishedThreshold``, PT24H: Druid's ``TaskStorageConfig``, applied by
``TaskStorageUtils.processTaskLookups``); with one, those created within its *length* before now, whatever its
dates (``TaskQueryTool.getTaskStatusPlusList``; checked on Druid 33 in ``tests/e2e/test_history_real.py``)."""

from __future__ import annotations

import requests
from druid_ingest.testing import FakeDruid, SimClock, index_parallel_spec

V1 = "/druid/indexer/v1"


def _listed(fake: FakeDruid, extra: str = "") -> list[str]:
    answer = requests.get(f"{fake.url}{V1}/tasks?state=complete&datasource=w{extra}", timeout=5)
    answer.raise_for_status()
    return [t["id"] for t in answer.json()]


def test_completed_tasks_are_listed_from_the_last_day_unless_an_interval_s_length_says_otherwise(
        fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.0)
    for n, then_days in enumerate((1.0, 1.5, 0.5)):  # created 3 days, 2 days and 12 hours before "now"
        fake.seed_tasks([index_parallel_spec("w", intervals=[f"2024-01-0{n + 1}/P1D"], task_id=f"t{n}")])
        clock.sleep(86400 * then_days)
    assert _listed(fake) == ["t2"]  # the last day's only
    assert _listed(fake, "&createdTimeInterval=1970-01-01_3000-01-01") == ["t2", "t1", "t0"]
    # 2.5 days long, dated in 2001: read as "created within 2.5 days before now"
    assert _listed(fake, "&createdTimeInterval=2001-01-01T00:00:00Z_2001-01-03T12:00:00Z") == ["t2", "t1"]
    bad = requests.get(f"{fake.url}{V1}/tasks?state=complete&createdTimeInterval=garbage", timeout=5)
    assert bad.status_code == 500 and "Invalid interval[garbage]" in bad.text  # Druid 33: Intervals.of throws
