"""The gate's edges that mutation testing (``scripts/mutation.sh``) found untested: the exact floor and ceiling of
"this task's version", appends, counts over several pieces, the exact verdict texts, and the interval index."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from druid_ingest.api._models import DataServer, HandoffTarget, Segment
from druid_ingest.ops.gate.timeline import IntervalIndex, format_instant
from druid_ingest.ops.gate.verdict import broker_lag, chunk_targets, empty_publish, evaluate, loading_note

from tests.druid_ingest.ops.segments import hour, seg

OLD = "2026-11-20T10:00:00.000Z"
CREATED = "2026-11-29T10:00:00.000Z"
MINE = "2026-11-29T10:00:01.500Z"
CEILING = "2026-11-29T10:00:01.504Z"
NEWER = "2026-11-29T11:00:00.000Z"
NEWEST = "2026-11-29T12:00:00.000Z"
DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"


def target(**kw) -> HandoffTarget:
    return HandoffTarget("t", "ds", (DAY,), CREATED, **kw)


def ids(segments: list[Segment]) -> set[str]:
    return {s.segment_id for s in segments}


def test_tombstones_at_exactly_the_created_time_are_this_tasks_empty_publish() -> None:
    assert empty_publish(target(version_ceiling=CEILING), [seg(DAY, OLD), seg(DAY, CREATED, tomb=True)])


def test_an_empty_publish_without_a_ceiling_counts_every_version_from_the_floor_up() -> None:
    assert empty_publish(target(), [seg(DAY, OLD), seg(DAY, MINE, tomb=True)])
    assert not empty_publish(target(), [seg(hour(0), MINE, tomb=True), seg(hour(1), NEWER)])


def test_a_later_replace_above_the_ceiling_is_not_this_tasks_publish() -> None:
    """Our own version wrote only tombstones; a later replace's rows (above the ceiling) do not make it non-empty."""
    used = [seg(hour(0), MINE, tomb=True), seg(hour(1), NEWER)]
    assert empty_publish(target(version_ceiling=CEILING), used)


def test_an_appends_pieces_are_all_its_own_whatever_the_ceiling_says() -> None:
    """An append reuses the chunk's existing version, so the ceiling cannot tell whose a version is: every
    visible piece must be served, and none is "later" (which would end it ``superseded``)."""
    append = target(append=True, version_ceiling=CEILING)
    chunks = chunk_targets(append, [seg(hour(0), OLD), seg(hour(1), NEWER)])
    assert [(c.version, c.owner) for c in chunks] == [(OLD, "own"), (NEWER, "own")]
    result = evaluate(append, chunks, ids([seg(hour(0), OLD), seg(hour(1), NEWER)]))
    assert result.state == "loaded" and result.superseded_by is None


def test_a_version_at_the_floor_under_an_incomplete_newer_set_is_not_claimed_without_a_ceiling() -> None:
    """Two versions >= createdTime overlap (one still publishing: partition 0 of 2), no ceiling: whose is unknown."""
    chunks = chunk_targets(target(), [seg(DAY, CREATED), seg(DAY, NEWER, part=0, core=2)])
    assert [(c.version, c.owner) for c in chunks] == [(CREATED, "unknown")]


def test_broker_lag_sums_over_every_piece() -> None:
    chunks = chunk_targets(target(version_ceiling=CEILING),
                           [seg(hour(0), MINE, 0, core=2), seg(hour(0), MINE, 1, core=2), seg(hour(1), MINE),
                            seg(hour(2), MINE)])
    nothing_seen = broker_lag(chunks, [])
    assert nothing_seen == (4, 0)
    old_everywhere = [Segment("", hour(h), OLD, 0) for h in range(3)]
    assert broker_lag(chunks, old_everywhere) == (4, 3)
    caught_up_last = [*old_everywhere[:2], Segment("", hour(2), MINE, 0)]
    assert broker_lag(chunks, caught_up_last) == (3, 2)


def test_the_verdict_texts_exactly() -> None:
    assert evaluate(target(segments_published=0), [], set()).detail == (
        "the task published no segments (no rows, nothing replaced)")
    assert evaluate(target(segments_published=0, task_message="No valid rows"), [], set()).detail == (
        'the task published no segments (no rows, nothing replaced); Druid said: "No valid rows"')
    assert evaluate(target(segments_published=3), [], set()).detail == (
        "none of this task's segments are in the metadata store yet (report says 3)")

    mine = target(version_ceiling=CEILING)
    plain = chunk_targets(mine, [seg(DAY, MINE)])
    assert evaluate(mine, plain, ids([seg(DAY, MINE)])).detail == f"all 1 segment(s) of version {MINE} are served"

    partly = chunk_targets(mine, [seg(DAY, MINE), seg(hour(3), NEWER), seg(hour(5), NEWEST)])
    result = evaluate(mine, partly, ids([seg(DAY, MINE), seg(hour(3), NEWER), seg(hour(5), NEWEST)]))
    assert result.version == MINE and result.superseded_by == NEWEST
    assert result.detail == (f"all 3 segment(s) of version {MINE} are served; 2 chunk(s) since replaced by version "
                             f"{NEWER}, {NEWEST}")

    gone = chunk_targets(mine, [seg(hour(0), MINE), seg(hour(0), NEWER), seg(hour(1), MINE), seg(hour(1), NEWEST)])
    result = evaluate(mine, gone, ids([seg(hour(0), NEWER), seg(hour(1), NEWEST)]))
    assert (result.state, result.version, result.superseded_by) == ("superseded", None, NEWEST)
    assert result.detail == (f"a later ingestion (version {NEWER}, {NEWEST}) replaced this task's data; its 2 "
                             "segment(s) are served")

    unknown = chunk_targets(target(), [seg(DAY, MINE), seg(DAY, NEWER)])
    assert evaluate(target(), unknown, ids([seg(DAY, NEWER)])).detail == (
        f"all 1 segment(s) of version {NEWER} are served; in 1 chunk(s) several versions are newer than the task's "
        "createdTime and its lock was never observed, so the newest is required (it may be a later ingestion's)")


def test_loading_note_texts_exactly() -> None:
    assert loading_note([]) == ("no Historical is announced to the Coordinator (its /servers list has none), so "
                                "nothing can load them until one starts")
    tiny = DataServer("h1:8083", "historical", "_default_tier", 1, 1)  # a one-byte cache, full
    other = DataServer("h2:8083", "historical", "_default_tier", 7, 5)
    assert loading_note([tiny, other]) == (
        "every Historical's segment cache is full (h1:8083 1/1 bytes, h2:8083 7/5 bytes): raise "
        "druid.segmentCache.locations maxSize")


def test_format_instant_is_utc_millis_whatever_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        at = datetime(2026, 11, 1, 10, 30, 0, 999_000, tzinfo=timezone(timedelta(hours=5, minutes=30)))
        assert format_instant(at) == "2026-11-01T05:00:00.999Z"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_interval_index_returns_exactly_the_overlapping_segments() -> None:
    day, before, touching_start, touching_end = seg(DAY, OLD), seg(hour(2), OLD), seg(hour(9), OLD), seg(hour(11), OLD)
    index = IntervalIndex([day, before, touching_start, touching_end])
    assert index.overlapping(hour(10)) == [day]  # intervals are half-open: 09-10 and 11-12 only touch 10-11


def test_interval_index_with_a_segment_spanning_millennia_looks_from_the_beginning() -> None:
    """The longest segment is longer than the time since year 1: the earliest possible start overflows."""
    forever, day = seg("0001-01-01T00:00:00.000Z/9999-12-31T00:00:00.000Z", OLD), seg(DAY, MINE)
    index = IntervalIndex([day, forever])
    assert index.overlapping(hour(10)) == [forever, day]


def test_the_never_pending_and_empty_texts_exactly() -> None:
    mine = target(version_ceiling=CEILING)
    chunks = chunk_targets(mine, [seg(DAY, MINE)])
    never = evaluate(mine, chunks, set(), never={seg(DAY, MINE).segment_id})
    assert never.detail == "load rules give these segments zero replicas (or drop them): they will never be served"
    assert (never.expected, never.served, never.missing) == (1, 0, (seg(DAY, MINE).segment_id,))

    pending = evaluate(mine, chunk_targets(mine, [seg(hour(0), MINE), seg(hour(1), MINE)]),
                       {seg(hour(0), MINE).segment_id})
    assert pending.detail == "1 of 2 segment(s) not served yet"
    gone = chunk_targets(mine, [seg(hour(0), MINE), seg(hour(0), NEWER), seg(hour(1), MINE), seg(hour(1), NEWER)])
    waiting = evaluate(mine, gone, set())
    assert waiting.detail == (f"a later ingestion (version {NEWER}) replaced this task's data: 2 of 2 segment(s) "
                              "not served yet")

    tombs = [seg(hour(0), MINE, tomb=True)]
    empty = target(version_ceiling=CEILING, task_message="No valid rows")
    result = evaluate(empty, chunk_targets(empty, tombs), ids(tombs), empty=True)
    assert result.detail == ("an empty replace (it published only tombstones): the interval's data is gone, its 1 "
                             'segment(s) (tombstones) are served; Druid said: "No valid rows"')
    quiet = target(version_ceiling=CEILING, rows_processed=0)
    result = evaluate(quiet, chunk_targets(quiet, tombs), ids(tombs), empty=True)
    assert result.detail == ("an empty replace (its report counts 0 rows): the interval's data is gone, its 1 "
                             "segment(s) (tombstones) are served")
