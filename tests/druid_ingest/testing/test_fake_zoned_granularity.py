"""The fake accepts a ``period`` segmentGranularity with a ``timeZone`` and buckets on that zone's clock, as Druid's
``PeriodGranularity`` does: the README's fix for non-UTC schedules must be testable against the fake (issue 27
item 7c). Buckets measured on Druid 33 for the same intervals: ``docs/druid-contract.md`` §alignment."""

from __future__ import annotations

from typing import Any

import requests
from druid_ingest.testing import index_parallel_spec

from tests.druid_ingest.testing.waiting import wait_until

V1 = "/druid/indexer/v1"
BERLIN_DAYS = "2026-10-23T22:00:00Z/2026-10-25T23:00:00Z"  # two Berlin days, the second 25 hours (DST ends)


def zoned(task_id: str, zone: str) -> dict[str, Any]:
    spec = index_parallel_spec("zoned", [BERLIN_DAYS], task_id=task_id)
    spec["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = {
        "type": "period", "period": "P1D", "timeZone": zone}
    return spec


def published(fake, task_id: str) -> list[str]:
    wait_until(lambda: fake.task(task_id).state != "RUNNING")
    assert fake.task(task_id).state == "SUCCESS"
    return sorted({s["interval"] for s in fake.used_segments("zoned") if s["version"] == fake.task(task_id).version})


def test_berlin_days_are_the_buckets(fake_druid) -> None:
    answer = requests.post(fake_druid.url + V1 + "/task", json=zoned("berlin", "Europe/Berlin"), timeout=5)
    assert answer.status_code == 200, answer.text
    assert published(fake_druid, "berlin") == [
        "2026-10-23T22:00:00.000Z/2026-10-24T22:00:00.000Z", "2026-10-24T22:00:00.000Z/2026-10-25T23:00:00.000Z"]


def test_a_zone_id_druid_does_not_know_buckets_in_utc(fake_druid) -> None:
    answer = requests.post(fake_druid.url + V1 + "/task", json=zoned("lower", "europe/berlin"), timeout=5)
    assert answer.status_code == 200, answer.text
    assert published(fake_druid, "lower")[0] == "2026-10-23T00:00:00.000Z/2026-10-24T00:00:00.000Z"
