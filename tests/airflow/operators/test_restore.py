"""``DruidRestoreOperator`` against the fake Druid: one markUsed in the worker, then the wait (in the triggerer, or
in the worker) until the dropped interval is served again; a retry changes nothing; bad input sends nothing."""

from __future__ import annotations

import pytest

from airflow_provider_druid_ingest.common.errors import DruidFatalFailure
from airflow_provider_druid_ingest.operators.drop import DruidDropOperator
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.restore import DruidRestoreOperator

from ..conftest import FakeTI
from ..helpers import DAY, FAST, spec

POLL = {"poll_interval": FAST["poll_interval"], "max_poll_interval": FAST["max_poll_interval"]}


@pytest.mark.parametrize("deferrable", [False, True], ids=["worker", "deferred"])
def test_a_dropped_day_is_served_again_and_a_retry_changes_nothing(druid_conn, ctx, deferrable):
    from airflow.sdk.exceptions import TaskDeferred

    from ..helpers import run_trigger

    DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    served = druid_conn.served_segment_ids("wiki")
    DruidDropOperator(task_id="d", datasource="wiki", intervals=[DAY], deferrable=False,
                      **POLL).execute({**ctx, "ti": FakeTI()})
    assert druid_conn.served_segment_ids("wiki") == set()
    restore = DruidRestoreOperator(task_id="r", datasource="wiki", intervals=[DAY], deferrable=deferrable, **POLL)
    assert restore.outlets == []
    if deferrable:
        with pytest.raises(TaskDeferred) as deferred:
            restore.execute({**ctx, "ti": FakeTI()})
        assert deferred.value.trigger.serialize()[1]["wants_served"] is True
        event = run_trigger(deferred.value.trigger)
        assert (event["status"], event["marked"]) == ("success", 1), event
        detail = restore.execute_complete({**ctx, "ti": FakeTI()}, event)
    else:
        detail = restore.execute({**ctx, "ti": FakeTI()})
    assert "1 segment(s) marked used by this run; the 1 data segment(s) visible in the interval are served" in detail
    assert druid_conn.served_segment_ids("wiki") == served
    again = DruidRestoreOperator(task_id="r", datasource="wiki", intervals=[DAY], deferrable=False,
                                 **POLL).execute({**ctx, "ti": FakeTI()})
    assert "0 segment(s) marked used by this run" in again


def test_a_timeout_event_fails_naming_the_restore(druid_conn, ctx):
    from airflow.sdk.exceptions import AirflowException

    restore = DruidRestoreOperator(task_id="r", datasource="wiki", intervals=[DAY])
    with pytest.raises(AirflowException, match="restore not finished \\(timeout\\): late"):
        restore.execute_complete(ctx, {"status": "timeout", "message": "late", "marked": 1})


def test_bad_input_fails_before_any_http(druid_conn, ctx):
    with pytest.raises(DruidFatalFailure, match="a restore covers exactly one interval"):
        DruidRestoreOperator(task_id="r", datasource="wiki", intervals=[DAY, DAY]).execute(ctx)
    with pytest.raises(DruidFatalFailure, match="datasource"):
        DruidRestoreOperator(task_id="r", datasource=" ", intervals=[DAY]).execute(ctx)
    assert druid_conn.requests == []
