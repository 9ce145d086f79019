"""The served-changes watch, pure (``ops/watch``): the served state of one look, the diff of two, coalescing, and
the cursor's codec refusing what it did not write."""

from __future__ import annotations

import json
from typing import Any

import pytest
from druid_ingest.api._models import Segment
from druid_ingest.errors import DruidUsageError
from druid_ingest.ops.gate.timeline import bounds
from druid_ingest.ops.watch.changes import ServedChange, coalesce, diff
from druid_ingest.ops.watch.cursor import WatchCursor, start_cursor
from druid_ingest.ops.watch.look import ALL_TIME, REPORTED_KINDS, ChangeBatch, first_batch, next_look, watch_window
from druid_ingest.ops.watch.state import Chunk, served_digest, served_state

from tests.druid_ingest.ops.segments import seg

V1, V2, V3 = "2026-11-20T10:00:00.000Z", "2026-11-21T10:00:00.000Z", "2026-12-02T08:00:00.000Z"
D1 = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
D2 = "2026-11-02T00:00:00.000Z/2026-11-03T00:00:00.000Z"
D3 = "2026-11-03T00:00:00.000Z/2026-11-04T00:00:00.000Z"
TWO_DAYS = "2026-11-01T00:00:00.000Z/2026-11-03T00:00:00.000Z"
MONTH = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"


def chunk(interval: str, version: str, writer: Any = "ingestion", partitions: int = 1) -> Chunk:
    return Chunk(*bounds(interval), version, writer, partitions)


def state(used: list[Segment], served: list[Segment], counted: frozenset[str] = frozenset()) -> list[tuple]:
    chunks = served_state(used, {s.segment_id for s in served}, watch_window(None), counted)
    return [(c.interval, c.version, c.writer, c.partitions) for c in chunks]


# ---- one look's served state ------------------------------------------------------------------------------------

def test_a_version_counts_only_once_every_segment_of_it_druid_loads_is_served() -> None:
    old, new = [seg(D1, V1), seg(D2, V1)], [seg(D1, V2), seg(D2, V2)]
    assert state([*old, *new], [*old, new[0]]) == [(TWO_DAYS, V1, "ingestion", 1)]  # half of V2: V1 still counts
    assert state([*old, *new], [*old, *new]) == [(TWO_DAYS, V2, "ingestion", 1)]


def test_an_overshadowed_segment_druid_never_loads_is_not_waited_for() -> None:
    never = seg(D1, V1)  # covered by the newer month before it loaded: the Coordinator will not load it
    month = seg(MONTH, V3, compacted=True)
    assert state([never, seg(D2, V2), month], [seg(D2, V2), month]) == [(MONTH, V3, "compaction", 1)]


def test_an_append_to_a_counted_version_is_not_a_half_loaded_new_one() -> None:
    used = [seg(D1, V1, 0, core=0), seg(D1, V1, 1, core=0)]  # partition 1 appended, not loaded yet
    assert state(used, used[:1], counted=frozenset({V1})) == [(D1, V1, "ingestion", 1)]
    assert state(used, used[:1]) == []  # never reported yet: it waits for the whole version
    assert state(used, used, counted=frozenset({V1})) == [(D1, V1, "ingestion", 2)]


def test_writers_and_segments_outside_the_window() -> None:
    used = [seg(D1, V2, tomb=True), seg(D2, V2), seg(D3, V3)]
    chunks = served_state(used, {s.segment_id for s in used}, TWO_DAYS)
    assert [(c.interval, c.writer) for c in chunks] == [(D1, "tombstone"), (D2, "ingestion")]  # D3 is outside


# ---- diff and coalesce ------------------------------------------------------------------------------------------

def test_a_new_version_replacing_two_days_is_one_change_naming_both() -> None:
    old = [chunk(D1, V1), chunk(D2, V2)]
    assert diff(old, [chunk(MONTH, V3, "compaction")]) == [
        ServedChange("served", MONTH, V3, "compaction", (V1, V2))]


def test_first_served_dropped_and_appended() -> None:
    assert diff([], [chunk(D1, V1)]) == [ServedChange("served", D1, V1, "ingestion", ())]
    assert diff([chunk(D1, V1), chunk(D2, V2)], []) == [ServedChange("dropped", TWO_DAYS, None, None, (V1, V2))]
    assert diff([chunk(D1, V1)], [chunk(D1, V1, partitions=2)]) == [
        ServedChange("appended", D1, V1, "ingestion", (V1,))]
    assert diff([chunk(D1, V1)], [chunk(D1, V1)]) == []


def test_only_neighbours_that_changed_alike_are_merged() -> None:
    gap = diff([], [chunk(D1, V1), chunk(D3, V1)])
    assert [c.interval for c in gap] == [D1, D3]  # not adjacent: two changes
    writers = diff([], [chunk(D1, V1), chunk(D2, V1, "tombstone")])
    assert [(c.interval, c.writer) for c in writers] == [(D1, "ingestion"), (D2, "tombstone")]
    same = [ServedChange("served", D1, V2, "ingestion", (V1,)), ServedChange("served", D2, V2, "ingestion", ())]
    assert coalesce(same) == [ServedChange("served", TWO_DAYS, V2, "ingestion", (V1,))]


def test_a_finer_replace_inside_a_coarser_chunk_is_its_own_interval() -> None:
    hour = "2026-11-01T05:00:00.000Z/2026-11-01T06:00:00.000Z"
    assert diff([chunk(D1, V1)], [chunk("2026-11-01T00:00:00.000Z/2026-11-01T05:00:00.000Z", V1), chunk(hour, V2),
                                  chunk("2026-11-01T06:00:00.000Z/2026-11-02T00:00:00.000Z", V1)]) == [
        ServedChange("served", hour, V2, "ingestion", (V1,))]


# ---- the cursor -------------------------------------------------------------------------------------------------

def test_the_cursor_round_trips_through_json() -> None:
    december = "2026-12-01T00:00:00.000Z/2027-01-01T00:00:00.000Z"
    cursor = WatchCursor("ds", ALL_TIME, served_digest({"a"}), (chunk(D1, V1), chunk(december, V3, "compaction")))
    assert WatchCursor.from_json(cursor.to_json()) == cursor
    assert start_cursor("ds", ALL_TIME).served == served_digest(set())


def good() -> dict[str, Any]:
    return WatchCursor("ds", ALL_TIME, served_digest({"a"}), (chunk(D1, V1), chunk(D2, V2))).to_dict()


def test_adjacent_chunks_round_trip() -> None:
    """Two chunks where one ends as the next starts (a day after a day) are a cursor, not an overlap."""
    assert WatchCursor.from_dict(good()).to_dict() == good()


@pytest.mark.parametrize(("field", "spoil", "said"), [
    ("format", lambda d: d.update(format=2), "'2', expected 1 (the layout this version writes)"),
    ("datasource", lambda d: d.update(datasource=""), "'', expected a datasource name"),
    ("window", lambda d: d.update(window="last week"), "'last week', expected an ISO interval"),
    ("served", lambda d: d.update(served="abc"), "'abc', expected the fingerprint of the served segment ids"),
    ("chunks", lambda d: d.update(chunks={}), "'{}', expected a list of [start, end, version, writer, partitions]"),
    ("chunks[0]", lambda d: d["chunks"][0].pop(), "expected [start, end, version, writer, partitions]"),
    ("chunks[0]", lambda d: d["chunks"][0].pop(), "is \"['2026-11-01T00:00:00.000Z', "),
    ("chunks[0]", lambda d: d["chunks"][0].__setitem__(0, "yesterday"), "yesterday"),
    ("chunks[0]", lambda d: d["chunks"][0].__setitem__(0, "yesterday"), "expected two ISO instants first"),
    ("chunks[1]", lambda d: d["chunks"][1].__setitem__(1, "2026-11-01T00:00:00.000Z"),
     "expected an end after its start"),
    ("chunks[1]", lambda d: d["chunks"][1].__setitem__(1, d["chunks"][1][0]),  # no time at all
     "2026-11-02T00:00:00.000Z', '2026-11-02T00:00:00.000Z', "),
    ("window", lambda d: d.update(window="x" * 100), f"{'x' * 80!r}, expected"),  # a long value, cut at 80
    ("chunks[1][2]", lambda d: d["chunks"][1].__setitem__(2, ""), "'', expected a version"),
    ("chunks[0][3]", lambda d: d["chunks"][0].__setitem__(3, "robot"),
     "'robot', expected one of ingestion, compaction, tombstone"),
    ("chunks[0][4]", lambda d: d["chunks"][0].__setitem__(4, 0), "'0', expected a count of segments, 1 or more"),
    ("chunks[0][4]", lambda d: d["chunks"][0].__setitem__(4, True), "'True', expected a count of segments"),
    ("chunks[1]", lambda d: d["chunks"][1].__setitem__(0, "2026-11-01T12:00:00.000Z"),  # overlaps chunks[0]
     "2026-11-01T12:00:00.000Z', '2026-11-03T00:00:00.000Z', "),
    ("chunks[1]", lambda d: d["chunks"][1].__setitem__(0, "2026-11-01T12:00:00.000Z"),
     "expected a chunk starting at or after chunks[0]'s end"),
])
def test_a_malformed_cursor_is_refused_naming_the_field_the_value_and_what_is_valid(
        field: str, spoil: Any, said: str) -> None:
    data = good()
    spoil(data)
    with pytest.raises(DruidUsageError) as refused:
        WatchCursor.from_dict(json.loads(json.dumps(data)))
    text = str(refused.value)
    assert text.startswith(f"malformed watch cursor: {field} is ") and said in text, text
    assert text.endswith("A cursor is only written by a watch; remove it to start again from nothing served")


def test_the_json_is_one_compact_line() -> None:
    text = WatchCursor.from_dict(good()).to_json()
    assert "\n" not in text and ", " not in text and '": ' not in text  # no spaces: a sensor cursor stays small


def test_text_that_is_no_cursor_is_refused() -> None:
    with pytest.raises(DruidUsageError, match=r"malformed watch cursor: the cursor is '\{not json', expected JSON"):
        WatchCursor.from_json("{not json")
    with pytest.raises(DruidUsageError, match=r"malformed watch cursor: the cursor is '\[\]', expected a JSON object"):
        WatchCursor.from_json("[]")


def test_a_change_and_a_batch_serialize_as_primitives() -> None:
    """What the CLI prints (--json) and an event carries: plain JSON values, the cursor left out of the batch."""
    change = ServedChange("served", D1, V2, "compaction", (V1,))
    assert change.to_dict() == {"kind": "served", "interval": D1, "version": V2, "writer": "compaction",
                                "replaced": [V1]}
    batch = ChangeBatch((change,), WatchCursor("ds", ALL_TIME, served_digest({"a"}), (chunk(D1, V2, "compaction"),)))
    assert batch.to_dict() == {"datasource": "ds", "window": ALL_TIME, "key": f">{served_digest({'a'})}",
                               "changes": [change.to_dict()]}
    assert json.loads(json.dumps(batch.to_dict())) == batch.to_dict()



def test_a_batch_names_its_look_and_keeps_only_the_kinds_asked_for() -> None:
    """The key is the fingerprints before and after the look (a batch delivered again has the same one); ``only``
    is the filter every watcher applies (``on=``), so the rule is written once."""
    served = ServedChange("served", D1, V2, "ingestion", (V1,))
    dropped = ServedChange("dropped", D2, None, None, (V1,))
    cursor = WatchCursor("ds", ALL_TIME, served_digest({"b"}), (chunk(D1, V2, "ingestion"),))
    batch = ChangeBatch((served, dropped), cursor, served_digest({"a"}))
    assert batch.key == f"{served_digest({'a'})}>{served_digest({'b'})}"
    assert batch.only(("dropped",)).changes == (dropped,)
    assert batch.only(REPORTED_KINDS).changes == (served,)
    assert batch.only(()).changes == () and batch.only(()).key == batch.key


def test_the_next_look_comes_soon_only_while_the_served_ids_move_without_news() -> None:
    """A version's segments load over seconds: the look that sees the first of them reports nothing (not whole),
    so the next one comes after a fifth of the cadence, not a full one; a look with news, or with nothing moving,
    keeps the cadence."""
    before, after = served_digest({"a"}), served_digest({"a", "b"})
    cursor = WatchCursor("ds", ALL_TIME, after, (chunk(D1, V1, "ingestion"),))
    loading = ChangeBatch((), cursor, before)
    assert next_look(loading, 60) == 12 and next_look(loading, 10) == 2 and next_look(loading, 2) == 1
    reported = ChangeBatch((ServedChange("served", D1, V1, "ingestion"),), cursor, before)
    assert next_look(reported, 60) == 60
    assert next_look(ChangeBatch((), cursor, after), 60) == 60  # nothing moved


def test_the_first_look_reports_everything_served_unless_from_now() -> None:
    """The one rule every watcher's first look follows (CLI, Airflow trigger, Dagster sensor): the past is news,
    or, ``from_now``, the baseline: no change, the same cursor, and a full cadence to the next look (nothing is
    settling, though the fingerprint moved from nothing served)."""
    served = ServedChange("served", D1, V1, "ingestion")
    cursor = WatchCursor("ds", ALL_TIME, served_digest({"a"}), (chunk(D1, V1, "ingestion"),))
    batch = ChangeBatch((served,), cursor, start_cursor("ds", ALL_TIME).served)
    assert first_batch(batch, from_now=False) == batch
    baseline = first_batch(batch, from_now=True)
    assert baseline.changes == () and baseline.cursor == cursor
    assert baseline.key == f"{cursor.served}>{cursor.served}"
    assert next_look(baseline, 60) == 60
    assert next_look(first_batch(ChangeBatch((), cursor, batch.since), from_now=True), 60) == 60  # half loaded too


def test_a_window_that_is_not_an_interval_is_refused_naming_it() -> None:
    with pytest.raises(DruidUsageError, match=r"the watch window 'yesterday' is not an ISO interval"):
        watch_window("yesterday")
