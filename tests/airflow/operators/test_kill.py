"""``DruidKillOperator`` against the fake Druid: the core's kill plan on the generic operator. Green once the kill
task succeeded (no handoff gate: it publishes nothing); a retry adopts it; used segments are never touched."""

from __future__ import annotations

import pytest

from airflow_provider_druid_ingest.common.errors import DruidFatalFailure
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.kill import DruidKillOperator

from ..conftest import FakeTI
from ..helpers import DAY, FAST, posts, spec


@pytest.mark.parametrize("deferrable", [False, True], ids=["worker", "deferred"])
def test_a_kill_after_a_drop_deletes_the_unused_day_and_a_retry_adopts_it(druid_conn, ctx, deferrable):
    from airflow.sdk.exceptions import TaskDeferred

    from ..helpers import run_trigger

    DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    assert druid_conn.mark_unused("wiki", DAY) == 1
    kill = DruidKillOperator(task_id="k", datasource="wiki", intervals=[DAY], deferrable=deferrable, **FAST)
    assert kill.outlets == [] and kill.pool_slots == 1
    if deferrable:
        with pytest.raises(TaskDeferred) as deferred:
            kill.execute({**ctx, "ti": FakeTI()})
        event = run_trigger(deferred.value.trigger)
        assert event["status"] == "success" and event.get("handoff") is None, event
        task_id = DruidKillOperator(task_id="k", datasource="wiki", intervals=[DAY], **FAST).execute_complete(
            {**ctx, "ti": FakeTI()}, event)
    else:
        task_id = kill.execute({**ctx, "ti": FakeTI()})
    assert task_id.startswith("kill_wiki_20260716-20260717_")
    assert druid_conn.segment_ids("wiki") == set()  # the unused day is gone for good
    again = DruidKillOperator(task_id="k", datasource="wiki", intervals=[DAY], deferrable=False,
                              **FAST).execute({**ctx, "ti": FakeTI()})
    assert again == task_id and len(posts(druid_conn)) == 2  # the ingestion and one kill


def test_a_kill_never_touches_used_segments(druid_conn, ctx):
    DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    served = druid_conn.segment_ids("wiki")
    DruidKillOperator(task_id="k", datasource="wiki", intervals=[DAY], deferrable=False,
                      **FAST).execute({**ctx, "ti": FakeTI()})
    assert druid_conn.segment_ids("wiki") == served and served


def test_a_bad_batch_size_fails_before_any_http(druid_conn, ctx):
    with pytest.raises(DruidFatalFailure, match="batch_size: must be a positive integer"):
        DruidKillOperator(task_id="k", datasource="wiki", intervals=[DAY], batch_size=0).execute(ctx)
    assert druid_conn.requests == []
