"""``DruidDropOperator`` against the fake Druid: one markUnused in the worker, then the wait (in the triggerer, or
in the worker) until nothing in the interval is served; a retry changes nothing; a cut segment is refused."""

from __future__ import annotations

import pytest

from airflow_provider_druid_ingest.common.errors import DruidFatalFailure
from airflow_provider_druid_ingest.operators.drop import DruidDropOperator
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

from ..conftest import FakeTI
from ..helpers import DAY, FAST, spec

POLL = {"poll_interval": FAST["poll_interval"], "max_poll_interval": FAST["max_poll_interval"]}


@pytest.mark.parametrize("deferrable", [False, True], ids=["worker", "deferred"])
def test_a_drop_unserves_the_day_and_a_retry_changes_nothing(druid_conn, ctx, deferrable):
    from airflow.sdk.exceptions import TaskDeferred

    from ..helpers import run_trigger

    DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    assert druid_conn.served_segment_ids("wiki")
    drop = DruidDropOperator(task_id="d", datasource="wiki", intervals=[DAY], deferrable=deferrable, **POLL)
    assert drop.outlets == []
    if deferrable:
        with pytest.raises(TaskDeferred) as deferred:
            drop.execute({**ctx, "ti": FakeTI()})
        event = run_trigger(deferred.value.trigger)
        assert (event["status"], event["marked"]) == ("success", 1), event
        detail = drop.execute_complete({**ctx, "ti": FakeTI()}, event)
    else:
        detail = drop.execute({**ctx, "ti": FakeTI()})
    assert "1 segment(s) marked unused by this run; nothing in the interval is served" in detail
    assert druid_conn.served_segment_ids("wiki") == set()
    again = DruidDropOperator(task_id="d", datasource="wiki", intervals=[DAY], deferrable=False,
                              **POLL).execute({**ctx, "ti": FakeTI()})
    assert "0 segment(s) marked unused by this run" in again


def test_a_drop_that_would_cut_a_segment_fails_and_marks_nothing(druid_conn, ctx):
    druid_conn.preload_segments("wiki", "2026-07-01/2026-08-01", "2026-07-20T00:00:00.000Z")
    with pytest.raises(DruidFatalFailure, match="would leave 1 segment"):
        DruidDropOperator(task_id="d", datasource="wiki", intervals=[DAY], deferrable=False,
                          **POLL).execute({**ctx, "ti": FakeTI()})
    assert len(druid_conn.served_segment_ids("wiki")) == 1


def test_two_intervals_fail_before_any_http(druid_conn, ctx):
    with pytest.raises(DruidFatalFailure, match="a drop covers exactly one interval"):
        DruidDropOperator(task_id="d", datasource="wiki", intervals=[DAY, DAY]).execute(ctx)
    assert druid_conn.requests == []
