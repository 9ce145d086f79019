"""Restore on the segment-write seam, decided by a real Druid 33: after a drop (SQL reads no row of the day),
``markUsed`` of the day is green only once its segments are served and routed, so the SQL count right after green
equals the original; a retry changes nothing. A datasource of its own per run (``h41seam_restore_<ns>``)."""

from __future__ import annotations

import time

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidNothingToRestoreError, DruidValidationError
from druid_ingest.planning import build_drop_plan, build_restore_plan

from tests.druid_sql import day_counts

from .test_real_druid import POLL, build, ingest

pytestmark = pytest.mark.timeout(600)

DAY = "2026-11-03"
INTERVAL = "2026-11-03T00:00:00.000Z/2026-11-04T00:00:00.000Z"


def rows_read(real: DruidClient, ds: str) -> int:
    """The day's raw rows a query reads; 0 when the Broker serves nothing of the datasource (SQL: not found)."""
    try:
        return int(day_counts(real, ds, DAY).get("rows") or 0)
    except DruidValidationError as exc:
        if "not found" not in str(exc):
            raise
        return 0


def test_a_dropped_day_restored_is_green_only_once_served_and_reads_every_row_again(
        real: DruidClient, spec_template, events_dir, expected) -> None:
    ds = f"h41seam_restore_{time.time_ns()}"
    _outcome, _status, _first, loaded = ingest(real, build(spec_template, events_dir, DAY, ds))
    assert loaded.state == "loaded", loaded
    original = day_counts(real, ds, DAY)
    assert original == expected[DAY], original

    dropped = real.segment_write(build_drop_plan(ds, INTERVAL), timeout=300, schedule=POLL)
    assert dropped.marked >= 1, dropped
    assert rows_read(real, ds) == 0  # the drop's green: nothing of the day is read

    lines: list[str] = []
    started = time.monotonic()
    restored = real.segment_write(build_restore_plan(ds, INTERVAL), timeout=300, schedule=POLL,
                                  on_progress=lines.append)
    took = time.monotonic() - started
    counts = day_counts(real, ds, DAY)  # right at green: served and routed, so every row is read again
    print(f"restore of {ds} {INTERVAL}: marked {restored.marked}, served {restored.served}, green after "
          f"{took:.1f} s, {len(lines) - 1} look(s) not green: {lines[1:]}; SQL {counts} (original {original})")
    assert (restored.marked, restored.wants_served) == (dropped.marked, True), restored
    assert restored.served >= 1 and counts == original, (restored, counts)
    assert "marking used through the Overlord's API" in lines[0], lines
    assert any("not served yet" in line or "the Broker does not route" in line for line in lines[1:]), lines

    again = real.segment_write(build_restore_plan(ds, INTERVAL), timeout=60, schedule=POLL)
    assert (again.marked, again.served) == (0, restored.served)  # a retry: no change, still green
    real.segment_write(build_drop_plan(ds, INTERVAL), timeout=300, schedule=POLL)  # leave the cluster unloaded


def test_a_restore_of_a_day_druid_holds_nothing_of_fails_closed_unless_allow_empty(real: DruidClient) -> None:
    """Druid 33 answers ``markUsed`` of a day it holds nothing of (never ingested, or killed) with 200 and 0 changed
    segments: the restore must not go green over a day a query reads no row of."""
    ds = f"h42restore_nothing_{time.time_ns()}"
    with pytest.raises(DruidNothingToRestoreError, match="allow_empty=True") as refused:
        real.segment_write(build_restore_plan(ds, INTERVAL), timeout=60, schedule=POLL)
    assert (refused.value.datasource, refused.value.interval, refused.value.marked) == (ds, INTERVAL, 0)
    assert "never ingested" in str(refused.value) and "killed" in str(refused.value), refused.value

    empty = real.segment_write(build_restore_plan(ds, INTERVAL, allow_empty=True), timeout=60, schedule=POLL)
    assert (empty.marked, empty.served) == (0, 0), empty
    assert "nothing to restore" in empty.detail and "allow_empty=True" in empty.detail, empty.detail
