"""``@task.druid_ingest`` / ``@task.druid_msq`` against FakeDruid over real sockets: the operator's own path
(pre-flight before HTTP, deterministic id, deferral and resume, Asset event), with the value computed at run time."""

from __future__ import annotations

import pendulum
import pytest
from airflow.sdk import DAG, Asset, task
from airflow.sdk.exceptions import AirflowFailException, TaskDeferred

from airflow_provider_druid_ingest.decorators.ingest import CARRIED, druid_ingest_task, druid_msq_task
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator

from ..helpers import DAY, FAST, posts, run_trigger, spec
from ..operators.test_msq import SQL, sql_posts

URI = "druid://druid_cluster_default/wiki"


def decorated(fn, *args, decorator=druid_ingest_task, **kw):
    """The operator the decorator builds for ``fn(*args)`` in a throwaway DAG."""
    with DAG("deco_unit", schedule=None, start_date=pendulum.datetime(2026, 7, 1, tz="UTC")):
        kw.setdefault("task_id", "deco")
        fn = decorator(**FAST, **kw)(fn)
        return fn(*args).operator


def test_the_decorators_are_airflows_task_attributes():
    assert task.druid_ingest is druid_ingest_task and task.druid_msq is druid_msq_task


def test_deferred_run_resumes_with_the_computed_spec_and_emits_the_event(druid_conn, ctx):
    calls = []

    def build(day_folder, data_interval_start=None):
        calls.append((day_folder, data_interval_start))
        return spec(intervals=[DAY])

    op = decorated(build, "/tmp/in/2026-07-16", datasource="wiki")
    assert isinstance(op, DruidIngestOperator) and [o.uri for o in op.outlets] == [URI] and op.pool_slots == 1
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(ctx)
    assert calls == [("/tmp/in/2026-07-16", ctx["data_interval_start"])]
    assert deferred.value.kwargs[CARRIED]["spec"]["dataSchema"]["dataSource"] == "wiki"
    resumed = decorated(build, "/tmp/in/2026-07-16", datasource="wiki")  # a fresh process: nothing computed
    druid_task_id = resumed.execute_complete(ctx, run_trigger(deferred.value.trigger), **deferred.value.kwargs)
    assert len(calls) == 1  # the function is not run again on resume
    assert deferred.value.trigger.druid_task_id == druid_task_id
    assert ctx["outlet_events"][Asset(URI)].extra["druid_task_id"] == druid_task_id
    assert len(posts(druid_conn)) == 1
    # dag.test() resumes with the event alone (no deferral kwargs): the function runs again, same Druid task
    again = decorated(build, "/tmp/in/2026-07-16", datasource="wiki")
    assert again.execute_complete(ctx, run_trigger(deferred.value.trigger)) == druid_task_id and len(calls) == 2


def test_same_spec_same_druid_task_as_the_operator(druid_conn, ctx):
    """The operator's path: the decorator's Druid task id is the operator's for the same spec (adopted)."""
    by_operator = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, **FAST).execute(ctx)
    def build() -> dict:  # annotated: Airflow would infer multiple_outputs and unroll the task id
        return spec()

    op = decorated(build, task_id="i", deferrable=False)
    assert op.multiple_outputs is False
    by_decorator = op.execute(ctx)
    assert by_decorator == by_operator and len(posts(druid_conn)) == 1


def test_bad_returned_spec_fails_with_the_preflight_message_before_any_http(druid_conn, ctx):
    bad = spec()
    bad["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = "FORTNIGHT"
    with pytest.raises(AirflowFailException, match=r"segmentGranularity.*FORTNIGHT"):
        decorated(lambda: bad).execute(ctx)
    assert druid_conn.requests == []


@pytest.mark.parametrize("returned", [None, ["not", "a", "spec"], "  "])
def test_a_return_value_that_is_no_spec_fails_naming_what_came_back(druid_conn, ctx, returned):
    with pytest.raises(AirflowFailException, match=r"@task.druid_ingest 'build': the function returned .*expected"):
        decorated(lambda: returned, task_id="build").execute(ctx)
    assert druid_conn.requests == []


def test_msq_decorator_runs_the_returned_statement(druid_conn, ctx):
    op = decorated(lambda table: SQL.replace("msq_op", table), "msq_op", decorator=druid_msq_task,
                   datasource="msq_op", deferrable=False)
    assert isinstance(op, DruidMsqIngestOperator) and op.pool_slots == 2
    druid_task_id = op.execute(ctx)
    assert druid_task_id.startswith("query-msq_msq_op_20260716-20260717_")
    assert "TIMESTAMP '2026-07-16 00:00:00'" in sql_posts(druid_conn)[0].json["query"]


def test_msq_decorator_refuses_a_statement_outside_the_run_before_any_http(druid_conn, ctx):
    bad = SQL.replace("{{ interval_end }}", "2026-07-18 00:00:00")
    with pytest.raises(AirflowFailException, match=r"(?s)invalid MSQ statement.*sql\.OVERWRITE"):
        decorated(lambda: bad, decorator=druid_msq_task, datasource="msq_op").execute(ctx)
    with pytest.raises(AirflowFailException, match="expected one MSQ statement"):
        decorated(lambda: {"sql": bad}, decorator=druid_msq_task, datasource="msq_op").execute(ctx)
    assert druid_conn.requests == []


def test_msq_decorator_carries_the_statement_across_the_deferral(druid_conn, ctx):
    calls = []

    def statement():
        calls.append(1)
        return SQL

    with pytest.raises(TaskDeferred) as deferred:
        decorated(statement, decorator=druid_msq_task, datasource="msq_op").execute(ctx)
    assert deferred.value.kwargs[CARRIED] == SQL
    resumed = decorated(statement, decorator=druid_msq_task, datasource="msq_op")
    druid_task_id = resumed.execute_complete(ctx, run_trigger(deferred.value.trigger), **deferred.value.kwargs)
    assert druid_task_id == deferred.value.trigger.druid_task_id and calls == [1]
    assert ctx["outlet_events"][Asset("druid://druid_cluster_default/msq_op")].extra["druid_task_id"] == druid_task_id


def test_for_intervals_names_the_ingestions_interval_and_travels_with_the_deferral(druid_conn, ctx):
    from airflow_provider_druid_ingest.decorators import ForIntervals
    from airflow_provider_druid_ingest.decorators.ingest import CARRIED_INTERVALS

    other_day = "2026-07-14T00:00:00Z/2026-07-15T00:00:00Z"  # not the run's (ctx: 07-16)
    calls = []

    def build():
        calls.append(1)
        return ForIntervals(spec(), [other_day])

    with pytest.raises(TaskDeferred) as deferred:
        decorated(build, datasource="wiki").execute(ctx)
    assert deferred.value.kwargs[CARRIED_INTERVALS] == [other_day]
    [sent] = posts(druid_conn)
    assert sent.json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [other_day]
    resumed = decorated(build, datasource="wiki")
    resumed.execute_complete(ctx, run_trigger(deferred.value.trigger), **deferred.value.kwargs)
    assert calls == [1] and resumed.intervals == [other_day]
    assert ctx["outlet_events"][Asset(URI)].extra["interval"] == other_day


@pytest.mark.parametrize("intervals", [[], "2026-07-14/2026-07-15", [None]])
def test_for_intervals_without_a_list_of_intervals_fails_naming_it(druid_conn, ctx, intervals):
    from airflow_provider_druid_ingest.decorators import ForIntervals

    with pytest.raises(AirflowFailException, match=r"ForIntervals\(intervals=.*expected a non-empty list"):
        decorated(lambda: ForIntervals(spec(), intervals), task_id="build").execute(ctx)
    assert druid_conn.requests == []
