"""The served-changes watch (``druid-ingest watch``, ``client.served_changes``) decided by a real Druid 33: an
ingestion is one ``served`` change naming its version once the data is queryable, a look with nothing new costs
one request, a DAY -> MONTH compaction is one change written by ``compaction`` (Druid 33 keeps
``lastCompactionState`` in the segment metadata), and a drop is one ``dropped`` change."""

from __future__ import annotations

import time

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.planning import build_compaction_plan, build_drop_plan

from .test_real_druid import POLL, build, ingest, wait_sql

pytestmark = pytest.mark.timeout(900)

DAYS = ("2026-11-02", "2026-11-03")
WINDOW = "2026-11-01/2026-12-01"
MONTH = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"


def look_until(client: DruidClient, ds: str, cursor, want, timeout: float = 120):
    """Looks until a batch satisfies ``want`` (Druid's Coordinator unloads overshadowed segments on its own
    cadence, so a compaction can take two batches: the MONTH served, then the days' segments gone)."""
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        batch = client.served_changes(ds, WINDOW, cursor)
        cursor = batch.cursor
        seen.extend(batch.changes)
        if want(batch) or time.monotonic() > deadline:
            return batch, seen
        time.sleep(1)


def test_an_ingestion_a_compaction_and_a_drop_are_one_change_each(real: DruidClient, spec_template, events_dir,
                                                                    expected) -> None:
    ds = f"e2e_watch_{time.time_ns()}"  # a datasource of its own: the watch starts from nothing served
    empty = real.served_changes(ds, WINDOW)
    assert empty.changes == ()

    _outcome, _status, _first, result = ingest(real, build(spec_template, events_dir, DAYS[0], ds))
    assert result.state == "loaded", result
    assert wait_sql(real, ds, DAYS[0], expected[DAYS[0]]) == expected[DAYS[0]]
    batch, _ = look_until(real, ds, empty.cursor, lambda b: bool(b.changes))
    assert [(c.kind, c.interval, c.writer) for c in batch.changes] == [
        ("served", f"{DAYS[0]}T00:00:00.000Z/2026-11-03T00:00:00.000Z", "ingestion")], batch
    version = batch.changes[0].version

    again = real.served_changes(ds, WINDOW, batch.cursor)
    assert again.changes == () and again.cursor == batch.cursor  # nothing new: the cursor stays

    ingest(real, build(spec_template, events_dir, DAYS[1], ds))
    grown, _ = look_until(real, ds, again.cursor, lambda b: bool(b.changes))
    assert [c.kind for c in grown.changes] == ["served"] and grown.changes[0].interval.startswith(DAYS[1]), grown

    plan = build_compaction_plan(ds, WINDOW, segment_granularity="MONTH", idempotency_key=ds)
    compacted = real.ingest(plan, task_timeout=300, handoff_timeout=300, schedule=POLL)
    assert compacted.handoff is not None and compacted.handoff.state == "loaded", compacted.handoff
    batch, seen = look_until(real, ds, grown.cursor, lambda b: any(c.writer == "compaction" for c in b.changes))
    month = [c for c in seen if c.writer == "compaction"]
    assert len(month) == 1 and month[0].kind == "served", seen
    assert month[0].interval == MONTH and version in month[0].replaced, month  # it names what it replaced

    dropped = real.segment_write(build_drop_plan(ds, WINDOW), timeout=300)
    assert dropped.marked >= 1, dropped
    _last, seen = look_until(real, ds, batch.cursor, lambda b: any(c.kind == "dropped" for c in b.changes))
    assert [(c.kind, c.interval) for c in seen] == [("dropped", MONTH)], seen
