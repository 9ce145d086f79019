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


def test_a_timeout_event_raises_the_core_timeout_a_retry_policy_matches(druid_conn, ctx):
    from druid_ingest.errors import DruidWaitTimeoutError

    restore = DruidRestoreOperator(task_id="r", datasource="wiki", intervals=[DAY])
    with pytest.raises(DruidWaitTimeoutError, match="restore not finished \\(timeout\\): late"):
        restore.execute_complete(ctx, {"status": "timeout", "message": "late", "marked": 1,
                                       "error_classes": ["DruidWaitTimeoutError"]})


@pytest.mark.parametrize("deferrable", [False, True], ids=["worker", "deferred"])
def test_nothing_to_restore_fails_without_retries_unless_allow_empty(druid_conn, ctx, deferrable):
    """A day Druid holds nothing of (never ingested, or killed): markUsed changes 0, and the task must not go green
    over a day a query reads no row of; ``allow_empty=True`` is the opt-out."""
    from airflow.sdk.exceptions import TaskDeferred
    from druid_ingest.errors import DruidNothingToRestoreError

    from ..helpers import run_trigger

    def run(**options: object) -> str:
        restore = DruidRestoreOperator(task_id="r", datasource="wiki", intervals=[DAY], deferrable=deferrable,
                                       **POLL, **options)
        if not deferrable:
            return restore.execute({**ctx, "ti": FakeTI()})
        with pytest.raises(TaskDeferred) as deferred:
            restore.execute({**ctx, "ti": FakeTI()})
        assert deferred.value.trigger.serialize()[1]["allow_empty"] is bool(options)
        return restore.execute_complete({**ctx, "ti": FakeTI()}, run_trigger(deferred.value.trigger))

    with pytest.raises(DruidFatalFailure, match=r"nothing to restore in .* pass allow_empty=True") as failed:
        run()
    assert isinstance(failed.value.error, DruidNothingToRestoreError)
    assert "nothing to restore" in run(allow_empty=True)


def test_bad_input_fails_before_any_http(druid_conn, ctx):
    with pytest.raises(DruidFatalFailure, match="a restore covers exactly one interval"):
        DruidRestoreOperator(task_id="r", datasource="wiki", intervals=[DAY, DAY]).execute(ctx)
    with pytest.raises(DruidFatalFailure, match="datasource"):
        DruidRestoreOperator(task_id="r", datasource=" ", intervals=[DAY]).execute(ctx)
    assert druid_conn.requests == []
