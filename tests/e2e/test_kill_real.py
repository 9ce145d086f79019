"""Kill on the Plan seam, decided by a real Druid 33: after a retention drop (``markUnused``) the kill task
deletes the day's segment files from deep storage; a retry adopts the kill; a day still used is never touched."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.planning import build_kill_plan

from .test_real_druid import POLL, build, day_counts, ingest, wait_sql

pytestmark = pytest.mark.timeout(600)

DS = "e2e_kill"
DROPPED, KEPT = "2026-11-04", "2026-11-05"
ROOT = Path(__file__).resolve().parents[2]


def deep_storage(day: str) -> list[Path]:
    """The day's segments in the dev Druid's local deep storage (``<var>/segments/<datasource>/<interval>/<version>/
    <partition>/index/``), one ``version.bin`` each."""
    var = Path(os.environ.get("DRUID_VAR_DIR") or ROOT / "dev/druid/var")
    return sorted((var / "segments" / DS).glob(f"{day}T*/**/version.bin"))


def mark_unused(druid_url: str, interval: str) -> None:
    """The retention drop, as Druid 33 takes it: the Coordinator's markUnused (through the Router)."""
    request = urllib.request.Request(f"{druid_url}/druid/coordinator/v1/datasources/{DS}/markUnused",
                                     data=json.dumps({"interval": interval}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 200, answer.read()


def test_a_kill_after_a_drop_deletes_the_files_and_never_touches_a_used_day(
        real: DruidClient, druid_url: str, spec_template, events_dir, expected) -> None:
    run = str(time.time_ns())  # a fresh ingestion per run: an earlier run's day was dropped and killed
    for day in (DROPPED, KEPT):
        _outcome, _status, _first, result = ingest(real, build(spec_template, events_dir, day, DS),
                                                   idempotency_key=run)
        assert result.state == "loaded", result
    assert deep_storage(DROPPED) and deep_storage(KEPT)
    interval = f"{DROPPED}T00:00:00.000Z/{KEPT}T00:00:00.000Z"
    mark_unused(druid_url, interval)  # then the Broker stops serving the day
    assert wait_sql(real, DS, DROPPED, lambda got: not got.get("rows"), timeout=120).get("rows") in (None, 0)

    plan = build_kill_plan(DS, interval, idempotency_key=run)
    first = real.ensure_submitted(plan)
    again = real.ensure_submitted(plan)  # a retried or cleared task: the same kill, never a second one
    assert (first.action, again.action, again.task_id) == ("submitted", "adopted", first.task_id)
    status = real.wait_for_task(first.task_id, timeout=300, schedule=POLL)
    assert status.state == "SUCCESS", status
    assert deep_storage(DROPPED) == []  # deleted for good
    assert deep_storage(KEPT) and day_counts(real, DS, KEPT) == expected[KEPT]  # the used day untouched
