"""Druid's timeline rules, pure (``core/timeline.py``), the gate's edges on it, and the core against the fake's own
independent timeline (``testing/fake_segments.visible_pieces``)."""

from __future__ import annotations

import random

import pytest
from druid_ingest.api._models import HandoffTarget, Segment
from druid_ingest.ops.gate.timeline import partition_sets, visible
from druid_ingest.ops.gate.verdict import broker_lag, chunk_targets, empty_publish, evaluate
from druid_ingest.testing.fake_segments import FakeSegment, visible_pieces
from druid_ingest.testing.fake_time import format_interval, parse_interval

from tests.druid_ingest.ops.segments import hour, seg

V1 = "2026-11-20T10:00:00.000Z"
CREATED = "2026-11-29T10:00:00.000Z"
CEILING = "2026-11-29T10:00:01.504Z"
V2 = "2026-11-29T10:00:01.500Z"
V3 = "2026-11-29T11:00:00.000Z"
DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
MONTH = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"


def shape(pieces) -> list[tuple[str, str, bool]]:
    return [(p.interval, p.version, p.tombstone_only) for p in pieces]


def test_a_finer_newer_version_clips_an_older_coarser_one_into_pieces() -> None:
    pieces = visible([seg(DAY, V1), seg(hour(5), V2)])
    assert shape(pieces) == [(hour(0, 5), V1, False), (hour(5), V2, False), (hour(6, 24), V1, False)]
    assert pieces[0].segments == pieces[2].segments == (seg(DAY, V1),)  # one set holds both pieces


def test_a_coarser_newer_version_hides_the_finer_older_ones_entirely() -> None:
    used = [seg(hour(h), V1) for h in range(24)] + [seg(MONTH, V2)]
    assert shape(visible(used)) == [(MONTH, V2, False)]
    assert shape(visible(used, [DAY])) == [(DAY, V2, False)]  # clipped to what was asked


def test_an_older_coarser_version_under_newer_finer_ones_is_visible_only_in_the_gaps() -> None:
    used = [seg(MONTH, V1)] + [seg(hour(h), V2) for h in (0, 1)]
    assert shape(visible(used, [DAY])) == [(hour(0), V2, False), (hour(1), V2, False), (hour(2, 24), V1, False)]


def test_incomplete_partition_sets_are_ignored_until_complete() -> None:
    old = seg(DAY, V1)
    half = [old, seg(DAY, V2, 0, core=2)]
    assert shape(visible(half)) == [(DAY, V1, False)]  # partition 1 of V2 is missing
    whole = [*half, seg(DAY, V2, 1, core=2)]
    assert shape(visible(whole)) == [(DAY, V2, False)]
    extra = [*whole, seg(DAY, V2, 2, core=2)]  # an appended partition above the core joins the set
    assert len(visible(extra)[0].segments) == 3
    gap = [old, seg(DAY, V2, 1, core=2), seg(DAY, V2, 2, core=2)]  # core partition 0 missing: still incomplete
    assert shape(visible(gap)) == [(DAY, V1, False)]
    assert (DAY, V2) in partition_sets([seg(DAY, V2, 3, core=0)])  # no core partitions: any set is complete


def test_tombstones_overshadow_but_hold_nothing() -> None:
    used = [seg(hour(h), V1) for h in range(24)] + [seg(DAY, V2, tomb=True, core=0)]
    assert shape(visible(used)) == [(DAY, V2, True)]
    newer = [*used, seg(hour(3), V3)]  # a later replace over the tombstone is visible where it covers
    assert shape(visible(newer)) == [(hour(0, 3), V2, True), (hour(3), V3, False), (hour(4, 24), V2, True)]


def test_equal_versions_longer_interval_wins_whatever_the_order() -> None:
    a, b = seg(DAY, V2), seg(hour(5), V2)
    assert shape(visible([a, b])) == shape(visible([b, a])) == [(DAY, V2, False)]


def target(**kw) -> HandoffTarget:
    return HandoffTarget("t", "ds", (DAY,), CREATED, **kw)


def test_a_version_equal_to_created_time_is_this_tasks_floor() -> None:
    at_floor = chunk_targets(target(version_ceiling=CEILING), [seg(DAY, V1), seg(DAY, CREATED)])
    assert [(c.version, c.owner) for c in at_floor] == [(CREATED, "own")]
    below = chunk_targets(target(version_ceiling=CEILING), [seg(DAY, "2026-11-29T09:59:59.999Z")])
    assert below == []  # older data this task did not write: not required


def test_a_version_equal_to_the_ceiling_is_own_just_above_is_later() -> None:
    own = chunk_targets(target(version_ceiling=CEILING), [seg(DAY, CEILING)])
    assert [c.owner for c in own] == ["own"]
    later = chunk_targets(target(version_ceiling=CEILING), [seg(DAY, "2026-11-29T10:00:01.505Z")])
    assert [c.owner for c in later] == ["later"]


def test_our_day_clipped_by_a_later_hour_is_loaded_once_both_are_served() -> None:
    used = [seg(DAY, V2), seg(hour(5), V3)]
    chunks = chunk_targets(target(version_ceiling=CEILING), used)
    assert [(c.interval, c.owner) for c in chunks] == [(hour(0, 5), "own"), (hour(5), "later"), (hour(6, 24), "own")]
    result = evaluate(target(version_ceiling=CEILING), chunks, {s.segment_id for s in used})
    assert result.state == "loaded" and result.expected == 2 and result.version == V2


def test_only_later_pieces_is_superseded_and_our_overshadowed_segments_are_not_required() -> None:
    used = [seg(DAY, V2), seg(MONTH, V3)]
    chunks = chunk_targets(target(version_ceiling=CEILING), used)
    assert [(c.interval, c.version, c.owner) for c in chunks] == [(DAY, V3, "later")]
    result = evaluate(target(version_ceiling=CEILING), chunks, {seg(MONTH, V3).segment_id})
    assert result.state == "superseded" and result.superseded_by == V3 and result.missing == ()


def candidate(interval: str, version: str, part: int = 0) -> Segment:
    return Segment("", interval, version, part)


def test_broker_candidates_match_by_overlap_and_another_version_under_ours_is_stale() -> None:
    chunks = chunk_targets(target(version_ceiling=CEILING), [seg(DAY, V2), seg(hour(5), V3)])
    clipped = [candidate(hour(0, 5), V2), candidate(hour(5), V3), candidate(hour(6, 24), V2)]
    assert broker_lag(chunks, clipped) == (0, 0)
    lagging = [candidate(DAY, V2)]  # the Broker has not seen the later hour yet: it reads our DAY there
    assert broker_lag(chunks, lagging) == (1, 1)
    tomb = chunk_targets(target(), [seg(hour(h), V1) for h in range(24)] + [seg(DAY, V2, tomb=True, core=0)])
    assert broker_lag(tomb, [candidate(hour(7), V1)]) == (0, 1)  # old HOUR rows still read under our tombstone
    assert broker_lag(tomb, []) == (0, 0)


def test_empty_publish() -> None:
    tomb = [seg(DAY, V1), seg(hour(0), V2, tomb=True), seg(hour(1), V2, tomb=True)]
    assert empty_publish(target(version_ceiling=CEILING), tomb)
    assert not empty_publish(target(version_ceiling=CEILING), [*tomb, seg(hour(2), V2)])
    assert empty_publish(target(rows_processed=0), [seg(DAY, V2)])
    assert not empty_publish(target(append=True), tomb)
    assert not empty_publish(target(), [])  # nothing at all is the "published nothing" path, not this one
    result = evaluate(target(), chunk_targets(target(), tomb), {s.segment_id for s in tomb}, empty=True)
    assert result.state == "nothing" and "tombstones" in result.detail


@pytest.mark.parametrize(("shard", "core"), [
    ({"type": "numbered", "partitionNum": 1, "partitions": 2}, 2),
    ({"type": "single", "partitionNum": 0, "numCorePartitions": 3}, 3),
    ({"type": "hashed", "partitionNum": 0, "partitions": 4, "numBuckets": 4}, 4),
    ({"type": "tombstone", "partitionNum": 0, "partitions": 1}, 0),
    ({"type": "linear", "partitionNum": 5}, 0),
])
def test_core_partitions_are_read_from_the_shard_spec(shard: dict, core: int) -> None:
    data = {"dataSource": "ds", "interval": DAY, "version": V1, "shardSpec": shard, "identifier": "x"}
    assert Segment.from_druid(data).core_partitions == core


def test_the_core_timeline_agrees_with_the_fakes_independent_one() -> None:
    rng = random.Random(20261201)
    spans = [(0, 24), (0, 24 * 30)] + [(h, h + 1) for h in range(24)] + [(h, h + 6) for h in range(0, 24, 6)]
    base = parse_interval(DAY)[0]
    for _ in range(300):
        fakes = []
        for _ in range(rng.randint(1, 8)):
            lo, hi = rng.choice(spans)
            core = rng.randint(0, 2)
            version = f"2026-11-2{rng.randint(0, 9)}T00:00:00.000Z"
            tomb = rng.random() < 0.2
            for part in ([0] if tomb else rng.sample(range(3), rng.randint(1, 3))):
                fakes.append(FakeSegment("ds", (base + lo * 3_600_000, base + hi * 3_600_000), version, part,
                                         1 if tomb else core, "tombstone" if tomb else "numbered"))
        ours = [Segment(f.identifier, format_interval(f.interval), f.version, f.partition_num, f.is_tombstone,
                        core_partitions=0 if f.is_tombstone else f.core_partitions) for f in fakes]
        theirs = [(format_interval(iv), group[0].version, all(s.is_tombstone for s in group))
                  for iv, group in visible_pieces(fakes, parse_interval(DAY))]
        assert shape(visible(ours, [DAY])) == theirs, fakes


def test_target_intervals_may_name_a_period() -> None:
    period_target = HandoffTarget("t", "ds", ("2026-11-01/P1D",), CREATED, version_ceiling=CEILING)
    chunks = chunk_targets(period_target, [seg(MONTH, V2)])
    assert [(c.interval, c.owner) for c in chunks] == [(DAY, "own")]  # clipped to the day the period names
