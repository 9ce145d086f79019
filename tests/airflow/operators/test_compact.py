"""``DruidCompactOperator`` against the fake Druid: the core's compaction plan on the generic operator. A retry
adopts the compaction (one POST); green only once the MONTH version is served; a bad interval fails before HTTP."""

from __future__ import annotations

import pytest
from airflow.sdk.exceptions import AirflowFailException

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
