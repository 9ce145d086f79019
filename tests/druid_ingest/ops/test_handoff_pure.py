"""The gate's pure half: which version each chunk needs served, whose it is, and the verdict."""

from __future__ import annotations

from druid_ingest.api._models import DataServer, HandoffTarget, Segment
from druid_ingest.ops.gate.verdict import (
    chunk_targets,
    empty_publish,
    evaluate,
    loading_note,
    plan_gate,
    required_segments,
    span_of,
)

from tests.druid_ingest.ops import segments

OLD = "2026-11-20T10:00:00.000Z"
CREATED = "2026-11-29T10:00:00.000Z"
MINE = "2026-11-29T10:00:01.500Z"
CEILING = "2026-11-29T10:00:01.504Z"
NEWER = "2026-11-29T11:00:00.000Z"


def seg(h: int, version: str, part: int = 0, tomb: bool = False) -> Segment:
    """Hour ``h``'s segment, no core partition count (any set is complete)."""
    return segments.seg(segments.hour(h), version, part, core=0, tomb=tomb)


def target(**kw) -> HandoffTarget:
    return HandoffTarget("t", "ds", ("2026-11-01/2026-11-02",), CREATED, **kw)


def ids(segments: list[Segment]) -> set[str]:
    return {s.segment_id for s in segments}


def test_replace_requires_new_version_not_old() -> None:
    used = [seg(0, OLD), seg(1, OLD), seg(0, MINE), seg(1, MINE, tomb=True)]
    chunks = chunk_targets(target(), used)
    assert {c.version for c in chunks} == {MINE} and {c.owner for c in chunks} == {"own"}
    assert ids(required_segments(chunks)) == ids([seg(0, MINE), seg(1, MINE, tomb=True)])


def test_old_version_served_is_not_enough() -> None:
    chunks = chunk_targets(target(), [seg(0, OLD), seg(0, MINE)])
    result = evaluate(target(), chunks, served={seg(0, OLD).segment_id})
    assert result.state == "pending" and not result.done
    assert evaluate(target(), chunks, served={seg(0, MINE).segment_id}).state == "loaded"


def test_tombstones_count() -> None:
    chunks = chunk_targets(target(), [seg(0, MINE), seg(1, MINE, tomb=True)])
    assert evaluate(target(), chunks, served={seg(0, MINE).segment_id}).state == "pending"


def test_nothing_published() -> None:
    assert evaluate(target(segments_published=0), [], set()).state == "nothing"
    assert evaluate(target(segments_published=None), [], set()).state == "nothing"
    assert evaluate(target(segments_published=3), [], set()).state == "pending"


def test_lock_ordered_versions_wait_for_the_newest() -> None:
    """Defect 1: a task queued earlier (A) locked after this one (B) was created, so A's version is above B's
    createdTime. B must wait for the newest version (its own), not call A's "mine" and B's "another task's"."""
    a_version, b_version = "2026-11-29T10:00:20.000Z", "2026-11-29T10:00:30.000Z"
    used = [seg(0, OLD), seg(0, a_version), seg(0, b_version)]
    for ceiling in (None, "2026-11-29T10:00:30.004Z"):
        chunks = chunk_targets(target(version_ceiling=ceiling), used)
        assert [c.version for c in chunks] == [b_version]
        pending = evaluate(target(version_ceiling=ceiling), chunks, served=ids([seg(0, OLD), seg(0, a_version)]))
        assert pending.state == "pending" and not pending.done, pending
        loaded = evaluate(target(version_ceiling=ceiling), chunks, served=ids([seg(0, b_version)]))
        assert loaded.state == "loaded" and loaded.version == b_version and loaded.superseded_by is None
    # Without a ceiling the ambiguity is said out loud.
    assert "never observed" in evaluate(target(), chunk_targets(target(), used), ids([seg(0, b_version)])).detail


def test_superseded_only_above_the_ceiling_and_only_once_served() -> None:
    """A's view of the same chunks: B's version is above A's ceiling, so B replaced A; done once B is served."""
    a_target = target(version_ceiling=CEILING)
    used = [seg(0, MINE), seg(0, NEWER), seg(1, MINE), seg(1, NEWER)]
    chunks = chunk_targets(a_target, used)
    assert {(c.version, c.owner) for c in chunks} == {(NEWER, "later")}
    waiting = evaluate(a_target, chunks, served=ids([seg(0, MINE), seg(1, MINE)]))
    assert waiting.state == "pending" and NEWER in waiting.detail
    done = evaluate(a_target, chunks, served=ids([seg(0, NEWER), seg(1, NEWER)]))
    assert done.state == "superseded" and done.done and done.superseded_by == NEWER and NEWER in done.detail


def test_partly_superseded_is_loaded_and_says_so() -> None:
    a_target = target(version_ceiling=CEILING)
    chunks = chunk_targets(a_target, [seg(0, MINE), seg(0, NEWER), seg(1, MINE)])
    result = evaluate(a_target, chunks, served=ids([seg(0, NEWER), seg(1, MINE)]))
    assert result.state == "loaded" and result.version == MINE and result.superseded_by == NEWER
    assert "since replaced" in result.detail


def test_ceiling_keeps_own_version_when_an_earlier_queued_task_is_above_the_floor() -> None:
    earlier = "2026-11-29T10:00:01.000Z"  # an earlier-created task that locked after our createdTime
    chunks = chunk_targets(target(version_ceiling=CEILING), [seg(0, earlier), seg(0, MINE)])
    assert [(c.version, c.owner) for c in chunks] == [(MINE, "own")]


def test_append_requires_newest_version_of_each_chunk() -> None:
    used = [seg(0, OLD, 0), seg(0, OLD, 1), seg(1, OLD)]
    assert len(required_segments(chunk_targets(target(append=True), used))) == 3


def test_never_wins_over_pending() -> None:
    chunks = chunk_targets(target(), [seg(0, MINE)])
    result = evaluate(target(), chunks, set(), never={seg(0, MINE).segment_id})
    assert result.state == "never" and result.never


def test_span() -> None:
    assert span_of([seg(3, MINE), seg(1, MINE)]) == "2026-11-01T01:00:00.000Z/2026-11-01T04:00:00.000Z"


def test_old_serialized_target_without_ceiling_still_loads() -> None:
    data = target().to_dict()
    del data["version_ceiling"]  # a trigger serialized by an earlier release
    assert HandoffTarget.from_dict(data).version_ceiling is None


def test_tombstones_only_at_the_exact_lock_version_is_nothing_not_loaded() -> None:
    """The ceiling read from activeLocks is the lock version itself, so the task's own version equals it. A
    replace whose report has no row stats and whose own version is only tombstones is empty: ``nothing``."""
    mine = target(version_ceiling=MINE, segments_published=2)  # rows_processed None: no row stats
    used = [seg(0, OLD), seg(1, OLD), seg(0, MINE, tomb=True), seg(1, MINE, tomb=True)]
    assert empty_publish(mine, used)
    gate = plan_gate(mine, used)
    result = evaluate(mine, gate.chunks, served=ids(required_segments(gate.chunks)), empty=gate.empty)
    assert result.state == "nothing" and "published only tombstones" in result.detail
    assert not empty_publish(mine, [*used, seg(2, MINE)])  # one real segment of its own: not empty


def test_loading_note_names_a_missing_or_full_historical() -> None:
    indexer = DataServer("idx:8091", "indexer-executor", "_default_tier", 0, 0)
    assert "no Historical is announced" in loading_note([indexer])
    assert "no Historical is announced" in loading_note([])
    full = DataServer("h1:8083", "historical", "_default_tier", 100, 100)
    room = DataServer("h2:8083", "historical", "_default_tier", 10, 100)
    assert "segment cache is full (h1:8083 100/100 bytes)" in loading_note([indexer, full])
    assert loading_note([indexer, full, room]) == ""  # one with room: loading is merely slow
    assert loading_note([DataServer("h3:8083", "historical", "t", 0, 0)]) == ""  # size unknown: no claim
