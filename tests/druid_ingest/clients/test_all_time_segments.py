"""A datasource holding an all-time segment (MSQ ``PARTITIONED BY ALL TIME``: Druid writes its interval as
``Intervals.ETERNITY``, ``-146136543-09-08T08:23:32.096Z/146140482-04-24T15:36:27.903Z``).

Found by trying it on the fake: every later gate on such a datasource raised ``DruidProtocolError`` ("segment
interval ... is not <start>/<end> with two ISO-8601 instants"), so a task whose data was queryable went red, and
so did every retry that adopted it. Now the gate reads eternity's bounds and writes them back as Druid does.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from druid_ingest.api._models import Segment
from druid_ingest.ops.gate.timeline import format_instant, visible
from druid_ingest.ops.gate.verdict import span_of
from druid_ingest.planning import build_msq_plan, parse_instant
from druid_ingest.planning.spec.intervals import ETERNITY_END, ETERNITY_START
from druid_ingest.testing import FakeDruid

from tests.druid_ingest.sample_specs import day_spec

pytestmark = pytest.mark.timeout(60)
ETERNITY = f"{ETERNITY_START}/{ETERNITY_END}"
DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
ALL_TIME_INSERT = ('INSERT INTO "events_web" SELECT TIME_PARSE(\'2026-10-01\') AS __time, 1 AS x '
                   "FROM (VALUES (1)) PARTITIONED BY ALL TIME")


def test_eternity_reads_and_writes_back_as_druid_spells_it() -> None:
    for text in (ETERNITY_START, ETERNITY_END):
        assert format_instant(parse_instant(text)) == text
    # datetime's first instant is year 1's: eternity's start reads as it (a year-1 segment would alias it)
    assert parse_instant(ETERNITY_START) < parse_instant("0001-01-01T00:00:00.001Z")
    assert parse_instant(ETERNITY_END) > parse_instant("9999-12-31T23:59:59.999Z")


def test_the_timeline_clips_an_all_time_segment_around_a_newer_day() -> None:
    old, new = "2026-10-01T00:00:00.000Z", "2026-11-29T10:00:00.000Z"
    pieces = visible([Segment("a", ETERNITY, old, 0), Segment("d", DAY, new, 0)])
    assert [(p.interval, p.version) for p in pieces] == [
        (f"{ETERNITY_START}/2026-11-01T00:00:00.000Z", old), (DAY, new),
        (f"2026-11-02T00:00:00.000Z/{ETERNITY_END}", old)]
    # one served-inventory call must cover both (Druid returns the segments the span contains)
    assert span_of([Segment("d", DAY, new, 0), Segment("a", ETERNITY, old, 0)]) == ETERNITY


def insert_all_time(fake: FakeDruid) -> None:
    """The statement as another tool (or a user in the console) would send it, not through our planning."""
    body = json.dumps({"query": ALL_TIME_INSERT, "context": {"sqlQueryId": "all-time"}}).encode()
    request = urllib.request.Request(f"{fake.url}/druid/v2/sql/task", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 202


def test_a_day_gated_over_an_all_time_segment_is_loaded(fake_druid_factory, make_client) -> None:
    fake = fake_druid_factory(task_duration=0.2, handoff_delay=0.1)
    client = make_client(fake.url)
    insert_all_time(fake)
    assert client.wait_for_task("query-all-time", timeout=20).state == "SUCCESS"
    assert [i for i in fake.segment_ids("events_web") if ETERNITY_START in i and ETERNITY_END in i]

    submitted = client.ensure_submitted(day_spec())
    assert client.wait_for_task(submitted.task_id, timeout=20).state == "SUCCESS"
    result = client.wait_for_handoff(client.handoff_target(submitted.task_id, "events_web", [DAY]), timeout=20)
    assert result.state == "loaded" and result.expected == 1, result


def test_an_all_time_insert_is_gated_on_its_own_segment(fake_druid_factory, make_client) -> None:
    fake = fake_druid_factory(task_duration=0.2, handoff_delay=0.1)
    client = make_client(fake.url)
    plan = build_msq_plan(ALL_TIME_INSERT, intervals=["2026-10-01/2026-10-02"])
    submitted = client.ensure_submitted(plan)
    status = client.wait_for_task(submitted.task_id, timeout=20)
    assert status.state == "SUCCESS", status
    target = client.handoff_target(submitted.task_id, "events_web", ["2026-10-01/2026-10-02"], append=True)
    result = client.wait_for_handoff(target, timeout=20)
    assert result.state == "loaded" and result.expected == 1, result
    assert result.missing == () and ETERNITY_END in fake.segment_ids("events_web").pop()
