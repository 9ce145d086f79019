"""The gate's pure half: picking this task's segments and judging them."""

from __future__ import annotations

from airflow_provider_druid_ingest.core.handoff import evaluate, select_task_segments, span_of
from airflow_provider_druid_ingest.core.models import HandoffTarget, Segment

OLD = "2026-11-20T10:00:00.000Z"
CREATED = "2026-11-29T10:00:00.000Z"
MINE = "2026-11-29T10:00:01.500Z"
NEWER = "2026-11-29T11:00:00.000Z"


def seg(hour: int, version: str, part: int = 0, tomb: bool = False) -> Segment:
    interval = f"2026-11-01T{hour:02d}:00:00.000Z/2026-11-01T{hour + 1:02d}:00:00.000Z"
    return Segment(f"ds_{interval}_{version}_{part}", interval, version, part, tomb)


def target(**kw) -> HandoffTarget:
    return HandoffTarget("t", "ds", ("2026-11-01/2026-11-02",), CREATED, **kw)


def test_replace_picks_new_version_not_old() -> None:
    used = [seg(0, OLD), seg(1, OLD), seg(0, MINE), seg(1, MINE, tomb=True)]
    mine, superseded = select_task_segments(target(), used)
    assert {s.version for s in mine} == {MINE} and len(mine) == 2 and superseded == 0


def test_old_version_served_is_not_enough() -> None:
    used = [seg(0, OLD), seg(0, MINE)]
    mine, sup = select_task_segments(target(), used)
    result = evaluate(target(), mine, sup, served={seg(0, OLD).segment_id})
    assert result.state == "pending" and not result.done
    assert evaluate(target(), mine, sup, served={seg(0, MINE).segment_id}).state == "loaded"


def test_tombstones_count() -> None:
    mine, sup = select_task_segments(target(), [seg(0, MINE), seg(1, MINE, tomb=True)])
    assert evaluate(target(), mine, sup, served={seg(0, MINE).segment_id}).state == "pending"


def test_nothing_published() -> None:
    assert evaluate(target(segments_published=0), [], 0, set()).state == "nothing"
    assert evaluate(target(segments_published=3), [], 0, set()).state == "pending"


def test_superseded_chunks_are_not_required() -> None:
    used = [seg(0, MINE), seg(0, NEWER), seg(1, MINE)]
    mine, sup = select_task_segments(target(), used)
    assert sup == 1 and [s.interval for s in mine] == [seg(1, MINE).interval]
    mine, sup = select_task_segments(target(), [seg(0, MINE), seg(0, NEWER)])
    assert evaluate(target(), mine, sup, set()).state == "superseded"


def test_append_requires_visible_versions() -> None:
    used = [seg(0, OLD, 0), seg(0, OLD, 1), seg(1, OLD)]
    mine, _ = select_task_segments(target(append=True), used)
    assert len(mine) == 3


def test_never_wins_over_pending() -> None:
    mine, sup = select_task_segments(target(), [seg(0, MINE)])
    result = evaluate(target(), mine, sup, set(), never={seg(0, MINE).segment_id})
    assert result.state == "never" and result.never


def test_span() -> None:
    assert span_of([seg(3, MINE), seg(1, MINE)]) == "2026-11-01T01:00:00.000Z/2026-11-01T04:00:00.000Z"
