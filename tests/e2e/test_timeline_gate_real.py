"""The handoff gate on Druid's real timeline (docs/druid-contract.md §timeline), against a real Druid 33:
a compaction DAY -> MONTH supersedes our DAY replace (named, never "never"), and a later one-hour replace inside
our day leaves our other 23 hours visible, so our gate passes."""

from __future__ import annotations

import copy
import json
import os
import time
import urllib.parse
import urllib.request
from typing import Any

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._poll_schedule import PollSchedule

from .test_real_druid import build

pytestmark = pytest.mark.timeout(900)
POLL = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)


def day_replace(template: dict[str, Any], events: Any, day: str, ds: str) -> dict[str, Any]:
    spec = build(template, events, day, ds)
    spec["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = "DAY"
    return spec


def run_task(client: DruidClient, spec: dict[str, Any]):
    outcome = client.ensure_submitted(spec)
    status = client.wait_for_task(outcome.task_id, timeout=600, schedule=POLL)
    assert status.state == "SUCCESS", status
    return outcome.task_id, status


def candidates(ds: str, interval: str) -> list[dict[str, Any]]:
    base = os.environ["DRUID_E2E_URL"].rstrip("/")
    query = urllib.parse.urlencode({"intervals": interval})
    with urllib.request.urlopen(f"{base}/druid/v2/datasources/{ds}/candidates?{query}", timeout=30) as resp:
        return json.loads(resp.read())


def counts(client: DruidClient, ds: str, day: str, skip_hour: int | None = None) -> dict[str, Any]:
    where = (f"__time >= TIMESTAMP '{day} 00:00:00' AND __time < TIMESTAMP '{day} 00:00:00' + INTERVAL '1' DAY")
    if skip_hour is not None:
        where += (f" AND NOT (__time >= TIMESTAMP '{day} {skip_hour:02d}:00:00' AND "
                  f"__time < TIMESTAMP '{day} {skip_hour + 1:02d}:00:00')")
    rows = client.sql(f'SELECT COUNT(*) AS "rollup_rows", SUM("rows") AS "rows" FROM "{ds}" WHERE {where}')
    return rows[0]


def test_compaction_day_to_month_supersedes_our_day_and_names_the_compact_task(real, spec_template, events_dir):
    ds, day, month = "e2e_gate_compact", "2026-11-02", "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"
    task_id, status = run_task(real, day_replace(spec_template, events_dir, day, ds))
    interval = f"{day}T00:00:00Z/2026-11-03T00:00:00Z"
    target = real.handoff_target(task_id, ds, [interval], version_ceiling=status.version_ceiling)
    compact = {"type": "compact", "dataSource": ds,
               "ioConfig": {"type": "compact", "inputSpec": {"type": "interval", "interval": month}},
               "granularitySpec": {"segmentGranularity": "MONTH"}}
    compact_id = real.submit(compact)
    assert real.wait_for_task(compact_id, timeout=600, schedule=POLL).state == "SUCCESS"
    started = time.monotonic()
    result = real.wait_for_handoff(target, timeout=600, schedule=POLL)  # never raises HandoffNeverError
    print(f"compaction: superseded after {time.monotonic() - started:.1f}s: {result.detail}")
    assert result.state == "superseded", result
    assert result.superseded_by_task == compact_id and "compact" in result.detail
    assert {c["interval"] for c in candidates(ds, interval)} == {f"{day}T00:00:00.000Z/2026-11-03T00:00:00.000Z"}
    assert {c["version"] for c in candidates(ds, interval)} == {result.superseded_by}


def test_a_later_one_hour_replace_inside_our_day_and_our_gate_still_passes(real, spec_template, events_dir,
                                                                           expected):
    ds, day = "e2e_gate_hour", "2026-11-03"
    ours = day_replace(spec_template, events_dir, day, ds)
    task_id, status = run_task(real, ours)
    interval = ours["spec"]["dataSchema"]["granularitySpec"]["intervals"][0]
    target = real.handoff_target(task_id, ds, [interval], version_ceiling=status.version_ceiling)
    assert real.wait_for_handoff(target, timeout=600, schedule=POLL).state == "loaded"
    want = {k: expected[day][k] for k in ("rollup_rows", "rows")}
    assert counts(real, ds, day) == want  # green means queryable
    other_23 = counts(real, ds, day, skip_hour=5)  # our rows outside 05:00-06:00, before the later replace
    hour = copy.deepcopy(ours)
    gran = hour["spec"]["dataSchema"]["granularitySpec"]
    gran["segmentGranularity"] = "HOUR"
    gran["intervals"] = [f"{day}T05:00:00Z/{day}T06:00:00Z"]
    later_id, _ = run_task(real, hour)
    later = real.wait_for_handoff(real.handoff_target(later_id, ds, gran["intervals"]), timeout=600, schedule=POLL)
    assert later.state == "loaded", later
    started = time.monotonic()
    result = real.wait_for_handoff(target, timeout=600, schedule=POLL)  # was: DruidWaitTimeoutError
    print(f"one-hour replace: our gate passed after {time.monotonic() - started:.1f}s: {result.detail}")
    assert result.state == "loaded" and result.version is not None, result
    pieces = sorted({(c["interval"], c["version"]) for c in candidates(ds, interval)})
    print("candidates:", pieces)
    ours_pieces = [iv for iv, v in pieces if v == result.version]
    assert ours_pieces == [f"{day}T00:00:00.000Z/{day}T05:00:00.000Z",
                           f"{day}T06:00:00.000Z/2026-11-04T00:00:00.000Z"], pieces
    # Our rows for the other 23 hours are what SQL reads; the replaced hour holds the same input's rows.
    assert counts(real, ds, day, skip_hour=5) == other_23 and other_23["rows"] > 0
    assert counts(real, ds, day) == want
