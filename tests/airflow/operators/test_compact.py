"""``DruidCompactOperator`` against the fake Druid: the core's compaction plan on the generic operator. A retry
adopts the compaction (one POST); green only once the MONTH version is served; a bad interval fails before HTTP."""

from __future__ import annotations

import pytest
from airflow.sdk.exceptions import AirflowFailException
from druid_ingest.errors import DruidNothingToCompactError

from airflow_provider_druid_ingest.common.errors import DruidFatalFailure
from airflow_provider_druid_ingest.operators.compact import DruidCompactOperator
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

from ..conftest import FakeTI
from ..helpers import FAST, posts, spec

JULY = "2026-07-01T00:00:00Z/2026-08-01T00:00:00Z"


def test_a_compaction_after_an_ingestion_is_green_once_served_and_a_retry_adopts_it(druid_conn, ctx):
    DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    compact = DruidCompactOperator(task_id="c", datasource="wiki", intervals=[JULY], segment_granularity="MONTH",
                                   deferrable=False, **FAST)
    assert compact.pool_slots == 1 and compact.outlets == []
    task_id = compact.execute({**ctx, "ti": FakeTI()})
    assert task_id.startswith("compact_wiki_20260701-20260801_")
    again = DruidCompactOperator(task_id="c", datasource="wiki", intervals=[JULY], segment_granularity="MONTH",
                                 deferrable=False, **FAST).execute({**ctx, "ti": FakeTI()})
    assert again == task_id and len(posts(druid_conn)) == 2  # the ingestion and one compaction
    month = druid_conn.task(task_id).segments
    assert [s["interval"] for s in month] == ["2026-07-01T00:00:00.000Z/2026-08-01T00:00:00.000Z"]
    assert {s["identifier"] for s in month} <= set(druid_conn.served_segment_ids("wiki"))


def test_an_unaligned_interval_fails_before_any_http_naming_the_field(druid_conn, ctx):
    op = DruidCompactOperator(task_id="c", datasource="wiki", intervals=["2026-07-02/2026-08-01"],
                              segment_granularity="MONTH", tuning_config={"maxNumConcurrentSubTasks": 2})
    assert op.pool_slots == 3
    with pytest.raises(DruidFatalFailure, match="interval: does not start and end on MONTH buckets") as failed:
        op.execute(ctx)
    assert isinstance(failed.value, AirflowFailException) and druid_conn.requests == []


def test_nothing_to_compact_fails_without_retries_and_allow_empty_is_green_with_no_second_task(druid_conn, ctx):
    """Druid fails a compaction of an interval without used segments before it runs: the core's
    DruidNothingToCompactError, fatal here (a retry would adopt the same FAILED task); with ``allow_empty`` the
    task is green, with no gate and no Asset event, and the retry adopts."""
    def op(**kw):
        return DruidCompactOperator(task_id="c", datasource="wiki", intervals=[JULY], segment_granularity="MONTH",
                                    deferrable=False, **FAST, **kw)

    with pytest.raises(DruidFatalFailure, match="Nothing to compact: datasource 'wiki' holds no used segment") as f:
        op().execute({**ctx, "ti": FakeTI()})
    assert isinstance(f.value, AirflowFailException) and isinstance(f.value.__cause__, DruidNothingToCompactError)
    assert "allow_empty=True" in str(f.value)
    ti = FakeTI()
    task_id = op(allow_empty=True).execute({**ctx, "ti": ti})
    assert task_id.startswith("compact_wiki_20260701-20260801_") and len(posts(druid_conn)) == 1  # adopted
    assert not [r for r in druid_conn.requests if "handoffComplete" in r.path]  # no gate: nothing was written


def test_a_resumed_nothing_to_compact_event_gets_the_same_verdict(druid_conn, ctx):
    """Deferred: the trigger's event carries the FAILED task's message only; the core recognises Druid's words
    there too, so the resumed task fails (fatal) or, with ``allow_empty``, is green."""
    from druid_ingest.api import TaskStatus
    from druid_ingest.ops import IngestionOutcome, TaskOutcome

    def op(**kw):
        return DruidCompactOperator(task_id="c", datasource="wiki", intervals=[JULY], segment_granularity="MONTH",
                                    **FAST, **kw)

    task_id = op().plan(ctx).base_task_id
    status = TaskStatus(task_id, "FAILED", error_msg="Encountered error[No segments found for compaction. Please "
                        "check that datasource name and interval are correct.] while waiting for task to be ready.")
    event = IngestionOutcome(TaskOutcome.terminal(status, None)).to_dict()
    with pytest.raises(DruidFatalFailure, match="Nothing to compact: datasource 'wiki'"):
        op().execute_complete({**ctx, "ti": FakeTI()}, event)
    assert op(allow_empty=True).execute_complete({**ctx, "ti": FakeTI()}, event) == task_id
    assert druid_conn.requests == []  # the verdict is the core's, from the event alone
