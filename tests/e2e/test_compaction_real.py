"""Compaction on the Plan seam, decided by a real Druid 33: DAY segments re-rolled into one MONTH segment. The
retry adopts the running compaction (one compact task), the wait is green only once the MONTH version is what
the Broker serves, and SQL reads the same rows before and after."""

from __future__ import annotations

import os
import time

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidNothingToCompactError, DruidTaskFailedError
from druid_ingest.planning import build_compaction_plan

from .test_real_druid import POLL, build, day_counts, ingest, wait_sql

pytestmark = pytest.mark.timeout(600)

DS = "e2e_compact"
DAYS = ("2026-11-02", "2026-11-03")
MONTH = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"
#: a datasource that never holds a segment (``E2E_DS_PREFIX`` keeps runs on a shared cluster apart)
EMPTY_DS = os.environ.get("E2E_DS_PREFIX", "e2e_") + "compact_empty"


def served_intervals(client: DruidClient) -> dict[str, set[str]]:
    """Interval -> versions of the segments the Broker can read now (published, available, not overshadowed)."""
    rows = client.sql("SELECT \"start\", \"end\", \"version\" FROM sys.segments WHERE datasource = ? AND "
                      "is_overshadowed = 0 AND is_available = 1 AND is_published = 1",
                      [{"type": "VARCHAR", "value": DS}])
    out: dict[str, set[str]] = {}
    for row in rows:
        out.setdefault(f"{row['start']}/{row['end']}", set()).add(row["version"])
    return out


def test_a_day_to_month_compaction_is_adopted_on_retry_and_green_once_the_month_is_served(
        real: DruidClient, spec_template, events_dir, expected) -> None:
    for day in DAYS:
        _outcome, _status, _first, result = ingest(real, build(spec_template, events_dir, day, DS))
        assert result.state in ("loaded", "superseded"), result  # superseded: an earlier run's MONTH compaction
    before = {day: wait_sql(real, DS, day, expected[day]) for day in DAYS}
    assert before == {day: expected[day] for day in DAYS}

    plan = build_compaction_plan(DS, "2026-11-01/2026-12-01", segment_granularity="MONTH",
                                 idempotency_key=str(time.time_ns()))  # a fresh compaction per run of the suite
    first = real.ensure_submitted(plan)
    again = real.ensure_submitted(plan)  # a retried or cleared task: the same compaction, never a second one
    assert (first.action, again.action, again.task_id) == ("submitted", "adopted", first.task_id)
    outcome = real.watch_ingestion(first.task_id, DS, list(plan.intervals), plan.append,
                                   task_deadline=time.time() + 300, handoff_timeout=300, schedule=POLL)
    assert outcome.task.kind == "success", outcome.task.message
    assert outcome.handoff is not None and outcome.handoff.verdict().passed, outcome.handoff
    assert outcome.handoff.result is not None and outcome.handoff.result.state == "loaded", outcome.handoff

    served = served_intervals(real)  # at the moment of green: the MONTH version is what queries read
    assert MONTH in served, served
    assert not any(i.startswith("2026-11-0") and i != MONTH for i in served), served  # no DAY segment still read
    tasks = real.sql("SELECT COUNT(*) AS n FROM sys.tasks WHERE datasource = ? AND type = 'compact' AND "
                     "task_id LIKE ?", [{"type": "VARCHAR", "value": DS},
                                        {"type": "VARCHAR", "value": plan.base_task_id + "%"}])
    assert tasks[0]["n"] == 1
    assert {day: day_counts(real, DS, day) for day in DAYS} == before  # the same rows, re-stored


def test_nothing_to_compact_is_its_own_error_and_allow_empty_makes_it_green(real: DruidClient) -> None:
    """Druid 33 fails a compaction of an interval without used segments while it waits to be ready; the core
    names that DruidNothingToCompactError (a DruidTaskFailedError carrying Druid's words), a retry adopts the
    FAILED task, and with ``allow_empty`` the same task is a green "nothing to compact" (the fake Druid models the
    same: tests/druid_ingest/planning/test_compaction_plan.py)."""
    plan = build_compaction_plan(EMPTY_DS, "2020-01-01/2020-02-01", segment_granularity="MONTH",
                                 idempotency_key=str(time.time_ns()))
    with pytest.raises(DruidNothingToCompactError) as failed:
        real.ingest(plan, task_timeout=300, handoff_timeout=300, schedule=POLL)
    assert isinstance(failed.value, DruidTaskFailedError)
    assert "No segments found for compaction" in (failed.value.error_msg or ""), failed.value.error_msg
    assert f"datasource {EMPTY_DS!r} holds no used segment in 2020-01-01" in str(failed.value)
    result = real.ingest(plan, task_timeout=300, handoff_timeout=300, schedule=POLL, allow_empty=True)
    assert result.nothing_to_compact is not None and result.nothing_to_compact.outcome == "nothing to compact"
    assert (result.submit.action, result.submit.task_id, result.handoff) == ("adopted", plan.base_task_id, None)
    tasks = real.sql("SELECT COUNT(*) AS n FROM sys.tasks WHERE datasource = ? AND task_id LIKE ?",
                     [{"type": "VARCHAR", "value": EMPTY_DS}, {"type": "VARCHAR", "value": plan.base_task_id + "%"}])
    assert tasks[0]["n"] == 1  # one compaction task: the retry and the green run adopted it
