"""Airflow 3.3's ``retry_policy=`` (``ExceptionRetryPolicy`` of ``RetryRule``s) keyed on the core's error classes.

Airflow's ``RetryRule.matches`` is ``isinstance(raised, <rule classes>)`` on the exception the task raised (no walk
of ``__cause__``), so our operators raise an Airflow exception that is also the core class (``common/errors.py``).
Each run below is a real ``dag.test()`` against FakeDruid over real sockets: the rule, not the task's default
retry logic, decides RETRY or FAIL. A fatal failure stays fatal: ``AirflowFailException`` is never handed to a
policy.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
import pytest
from airflow.sdk import DAG, ExceptionRetryPolicy, RetryAction, RetryRule
from druid_ingest.errors import (
    DruidAuthError,
    DruidLeaderUnavailableError,
    DruidRetriesExhaustedError,
    DruidTaskFailedError,
)
from druid_ingest.testing import Fault
from druid_ingest.wire import RetryPolicy

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

from .conftest import conn_json
from .helpers import DAY, FAST, posts, spec
from .test_dags import run_dag
from .test_dags import trigger_runs as trigger_runs  # a fixture

pytestmark = pytest.mark.usefixtures("airflow_db")

NOW = timedelta(0)


def _policy(rule_class, action: RetryAction, default: RetryAction = RetryAction.DEFAULT) -> ExceptionRetryPolicy:
    return ExceptionRetryPolicy(rules=[RetryRule(exception=rule_class, action=action, retry_delay=NOW)],
                                default=default)


def _run(dag_id: str, policy: ExceptionRetryPolicy, *, attempts: int = 1, deferrable: bool = False,
         retries: int = 2, **timeouts: float):
    with DAG(dag_id, schedule=None, start_date=pendulum.datetime(2026, 7, 1, tz="UTC")) as dag:
        DruidIngestOperator(task_id="ingest", spec=spec(), datasource="wiki", intervals=[DAY], idempotency_key=dag_id,
                            http_retry=RetryPolicy(max_attempts=attempts, initial_delay=0.01, max_delay=0.02),
                            retries=retries, retry_delay=NOW, retry_policy=policy,
                            deferrable=deferrable, **FAST, **timeouts)
    dr = run_dag(dag)
    [ti] = dr.get_task_instances()
    return ti


def _leaderless_submit(fake, times: int) -> None:
    fake.add_fault(Fault(method="POST", path=r"/druid/indexer/v1/task$", kind="leaderless", times=times))


@pytest.mark.parametrize("attempts", [1, 2], ids=["raw-503", "retries-exhausted"])
def test_a_retry_rule_on_the_core_class_retries_a_task_the_default_would_fail(druid_conn, attempts):
    """default=FAIL: only the rule on DruidLeaderUnavailableError can retry. With http_retry giving up after two
    attempts the raised error is DruidRetriesExhaustedError, which stands for its last error's class too."""
    _leaderless_submit(druid_conn, times=attempts)  # the first try's submit sees only 503s; the second goes through
    policy = _policy(DruidLeaderUnavailableError, RetryAction.RETRY, default=RetryAction.FAIL)
    ti = _run(f"retry_rule_retry_{attempts}", policy, attempts=attempts)
    assert (ti.state, ti.try_number) == ("success", 2)
    assert len(posts(druid_conn)) == attempts + 1


def test_a_fail_rule_on_the_core_class_fails_at_once_although_retries_remain(druid_conn):
    _leaderless_submit(druid_conn, times=1)
    policy = _policy("druid_ingest.errors.DruidLeaderUnavailableError", RetryAction.FAIL)  # a dotted path works too
    ti = _run("retry_rule_fail", policy)
    assert (ti.state, ti.try_number) == ("failed", 1)
    assert len(posts(druid_conn)) == 1


def test_a_rule_on_the_exhausted_retries_matches_only_when_http_retry_gave_up(druid_conn):
    _leaderless_submit(druid_conn, times=1)  # one attempt allowed: the raw 503 error, not "retries exhausted"
    ti = _run("retry_rule_exhausted", _policy(DruidRetriesExhaustedError, RetryAction.FAIL))
    assert (ti.state, ti.try_number) == ("success", 2)  # no match: the task's default retry


def test_a_rule_decides_on_the_error_a_deferred_wait_met_in_the_triggerer(druid_conn, trigger_runs):
    """The trigger's status reads meet 503s: the resumed task raises the core class the trigger saw."""
    druid_conn.add_fault(Fault(path=r"/druid/indexer/v1/(taskStatus|task/[^/]+/status)$", kind="queue_not_ready",
                               after=1, times=None))  # after the submit's own look for the id
    ti = _run("retry_rule_deferred", _policy(DruidLeaderUnavailableError, RetryAction.FAIL), deferrable=True,
              task_timeout=3)  # the wait rides the outage out to its deadline; its timeout names the last error
    assert (ti.state, ti.try_number) == ("failed", 1)
    assert trigger_runs == ["DruidIngestionTrigger"]  # the error was the trigger's, carried in its event


def test_a_failed_druid_task_can_be_kept_from_retrying_by_its_core_class(druid_conn):
    """The operator retries a FAILED Druid task by default (the retry submits ``_r1``); a rule can say no."""
    from druid_ingest.testing import TaskPlan

    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="bad input row"))
    ti = _run("retry_rule_failed_task", _policy(DruidTaskFailedError, RetryAction.FAIL), deferrable=True)
    assert (ti.state, ti.try_number) == ("failed", 1)
    assert len(posts(druid_conn)) == 1


def test_fatal_stays_fatal_whatever_the_rule_says(fake, monkeypatch):
    """A 401 is an AirflowFailException (also a DruidAuthError): Airflow never consults the policy for it."""
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url, password="wrong"))
    ti = _run("retry_rule_fatal", _policy(DruidAuthError, RetryAction.RETRY))
    assert (ti.state, ti.try_number) == ("failed", 1)
