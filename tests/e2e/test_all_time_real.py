"""Segment granularity ALL on a real Druid 33, and the gate over an all-time segment.

Druid buckets every row of an ALL ingestion into ``Intervals.ETERNITY`` (``AllGranularity.bucketStart`` is
``DateTimes.MIN``, its ``increment`` ``DateTimes.MAX``) when no intervals are given, but a spec with intervals gets
one segment per interval (``AllGranularity.getIterable`` returns the interval itself). A datasource loaded once
without intervals (by another tool, or a console user) then holds an all-time segment, and every later gate's
metadata read returns it: the gate raised ``DruidProtocolError`` on its interval, so a run whose day was queryable
went red, and every retry with it.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest
from druid_ingest import ClusterConfig
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.planning import build_plan
from druid_ingest.planning.spec.intervals import ETERNITY_END, ETERNITY_START
from druid_ingest.testing import FakeDruid

from .test_real_druid import POLL, build, day_counts, ingest, wait_sql

pytestmark = pytest.mark.timeout(600)

ALL_DAY, LATER_DAY = "2026-11-02", "2026-11-03"


def all_granularity(spec: dict[str, Any], intervals: bool) -> dict[str, Any]:
    out = copy.deepcopy(spec)
    granularity = out["spec"]["dataSchema"]["granularitySpec"]
    granularity["segmentGranularity"] = "ALL"
    if not intervals:  # Druid refuses a replace without intervals: an append finds them from the data
        del granularity["intervals"]
        out["spec"]["ioConfig"].update(appendToExisting=True, dropExisting=False)
        out["spec"]["tuningConfig"].update(forceGuaranteedRollup=False, partitionsSpec={"type": "dynamic"})
    return out


def segment_intervals(client: DruidClient, datasource: str) -> set[tuple[str, str]]:
    """The published segments' intervals, once the Broker's view of the metadata store has caught up."""
    deadline = time.monotonic() + 120
    while True:
        rows = client.sql('SELECT "start", "end" FROM sys.segments WHERE datasource = ? AND is_published = 1 '
                          "AND is_overshadowed = 0", [{"type": "VARCHAR", "value": datasource}])
        if rows or time.monotonic() > deadline:
            return {(r["start"], r["end"]) for r in rows}
        time.sleep(1)


def test_all_granularity_with_intervals_publishes_the_interval_on_druid_and_the_fake(
        real: DruidClient, spec_template, events_dir, expected, fake_druid_factory) -> None:
    ds = f"e2e_all_iv_{time.time_ns()}"
    _outcome, _status, _first, kept = ingest(real, build(spec_template, events_dir, LATER_DAY, ds))  # HOUR
    assert kept.state == "loaded", kept
    spec = all_granularity(build(spec_template, events_dir, ALL_DAY, ds), intervals=True)
    plan = build_plan(spec)  # pre-flight accepts it: the replace overwrites exactly the day
    submitted = real.ensure_submitted(plan)
    assert real.wait_for_task(submitted.task_id, timeout=300, schedule=POLL).state == "SUCCESS"
    target = real.handoff_target(submitted.task_id, ds, plan.intervals)
    result = real.wait_for_handoff(target, timeout=300, schedule=POLL)
    assert result.state == "loaded", result
    day = (f"{ALL_DAY}T00:00:00.000Z", f"{LATER_DAY}T00:00:00.000Z")
    assert day in segment_intervals(real, ds)
    assert day_counts(real, ds, ALL_DAY) == expected[ALL_DAY]
    assert day_counts(real, ds, LATER_DAY) == expected[LATER_DAY]  # the replace of ALL_DAY left the next day alone

    fake: FakeDruid = fake_druid_factory(task_duration=0.2, handoff_delay=0.1)
    with DruidClient(ClusterConfig(url=fake.url)) as client:
        status = client.wait_for_task(client.ensure_submitted(plan).task_id, timeout=30)
        assert status.state == "SUCCESS", status
    assert {i.split("_")[-3:-1] == list(day) for i in fake.segment_ids(ds)} == {True}, fake.segment_ids(ds)


def test_a_day_gated_over_an_all_time_segment_is_loaded(real: DruidClient, druid_url: str, spec_template,
                                                        events_dir, expected) -> None:
    ds = f"e2e_all_time_{time.time_ns()}"
    # another tool's load: no intervals, so Druid finds them from the data and ALL buckets them into eternity
    raw = all_granularity(build(spec_template, events_dir, ALL_DAY, ds), intervals=False)
    task_id = real.submit(raw)
    assert real.wait_for_task(task_id, timeout=300, schedule=POLL).state == "SUCCESS"
    assert segment_intervals(real, ds) == {(ETERNITY_START, ETERNITY_END)}

    _outcome, _status, _first, result = ingest(real, build(spec_template, events_dir, LATER_DAY, ds))
    assert result.state == "loaded", result  # was: DruidProtocolError on the all-time segment's interval
    assert day_counts(real, ds, LATER_DAY) == expected[LATER_DAY]
    # the all-time segment still serves its rows outside our day (the gate did not wait for it: not ours)
    assert wait_sql(real, ds, ALL_DAY, expected[ALL_DAY], timeout=120) == expected[ALL_DAY]
