"""What an Airflow task raises for a Druid failure: the core's own error when a retry can help (Airflow 3.3's
``RetryRule`` matches it by ``isinstance``, no ``__cause__`` walk), a fixed ``DruidFatalFailure``
(``AirflowFailException``, never handed to a retry policy) or ``DruidSensorTimeout`` when it cannot. No class is
made at run time: every raised class is importable by its module name, and pickles."""

from __future__ import annotations

import logging
import pickle

import pytest
from airflow.sdk import RetryAction, RetryRule
from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout
from druid_ingest.errors import (
    DruidAuthError,
    DruidLeaderUnavailableError,
    DruidRetriesExhaustedError,
    DruidTaskFailedError,
    DruidTimeoutError,
    DruidWaitTimeoutError,
    HandoffNeverError,
    SpecValidationError,
    retries_exhausted,
)
from druid_ingest.ops import HandoffOutcome, TaskOutcome

from airflow_provider_druid_ingest.common.errors import DruidFatalFailure, DruidSensorTimeout
from airflow_provider_druid_ingest.common.results import handoff_result, raise_for, task_result

LOG = logging.getLogger(__name__)


def test_a_retryable_worker_error_is_raised_as_the_core_error_itself():
    exc = DruidTimeoutError("read timed out", method="GET", url="http://druid/x")
    with pytest.raises(DruidTimeoutError) as raised:
        raise_for(exc)
    assert raised.value is exc and not isinstance(raised.value, AirflowException)
    assert RetryRule(exception=DruidTimeoutError, action=RetryAction.RETRY).matches(raised.value)


def test_exhausted_http_retries_are_also_the_last_errors_class():
    err = retries_exhausted(DruidLeaderUnavailableError("no leader", status=503), 2, 1.5)
    assert isinstance(err, DruidRetriesExhaustedError) and isinstance(err, DruidLeaderUnavailableError)
    assert err.attempts == 2 and err.last.status == 503
    assert err.retryable is False  # its own flag, not inherited from the last error's class
    assert RetryRule(exception="druid_ingest.errors.DruidLeaderUnavailableError", action=RetryAction.RETRY).matches(err)
    assert not RetryRule(exception=DruidAuthError, action=RetryAction.FAIL).matches(err)


def test_fatal_errors_are_fail_exceptions_that_keep_the_core_error():
    exc = DruidAuthError("denied", status=401)
    with pytest.raises(DruidFatalFailure) as raised:
        raise_for(exc)
    assert isinstance(raised.value, AirflowFailException) and raised.value.error is exc
    assert raised.value.__cause__ is exc and str(raised.value) == "denied HTTP 401"
    with pytest.raises(DruidFatalFailure, match="invalid MSQ statement"):
        raise_for(SpecValidationError([]), "invalid MSQ statement")


def test_raised_classes_pickle_with_their_fields():
    exhausted = retries_exhausted(DruidTimeoutError("slow", method="GET", url="http://druid/x"), 3, 2.0)
    back = pickle.loads(pickle.dumps(exhausted))
    assert type(back) is type(exhausted) and str(back) == str(exhausted) and back.last.method == "GET"
    failure = pickle.loads(pickle.dumps(DruidFatalFailure("denied", DruidAuthError("denied", status=401))))
    assert type(failure) is DruidFatalFailure and str(failure) == "denied" and failure.error.status == 401
    spec = pickle.loads(pickle.dumps(SpecValidationError([], "hint")))
    assert spec.hint == "hint" and str(spec).endswith("\nhint")


def test_outcome_errors_are_their_core_class():
    failed = TaskOutcome("failed", "t1", "Druid task t1 FAILED: bad row")
    with pytest.raises(DruidTaskFailedError, match="an Airflow retry submits") as op:
        task_result(failed, sensor=False)
    assert not isinstance(op.value, AirflowException)
    with pytest.raises(DruidFatalFailure) as sensor:
        task_result(failed, sensor=True)
    assert isinstance(sensor.value.error, DruidTaskFailedError)
    timeout = TaskOutcome("timeout", "t1", "still RUNNING")
    with pytest.raises(DruidSensorTimeout) as sensed:
        task_result(timeout, sensor=True)
    assert isinstance(sensed.value, AirflowSensorTimeout) and isinstance(sensed.value.error, DruidWaitTimeoutError)
    with pytest.raises(DruidWaitTimeoutError):
        task_result(timeout, sensor=False)
    event = TaskOutcome.errored("t1", DruidTimeoutError("slow")).to_dict()
    with pytest.raises(DruidTimeoutError):
        task_result(TaskOutcome.from_dict(event), sensor=False)
    fatal = TaskOutcome.errored("t1", DruidAuthError("denied", status=403)).to_dict()
    with pytest.raises(DruidFatalFailure) as refused:
        task_result(TaskOutcome.from_dict(fatal), sensor=False)
    assert isinstance(refused.value.error, DruidAuthError)


def test_a_wait_that_timed_out_during_an_outage_is_also_the_outages_class():
    event = {"status": "timeout", "druid_task_id": "t1", "message": "still RUNNING",
             "error_classes": ["DruidRetriesExhaustedError", "DruidLeaderUnavailableError"]}
    with pytest.raises(DruidWaitTimeoutError) as late:
        task_result(TaskOutcome.from_dict(event), sensor=False)
    assert RetryRule(exception=DruidLeaderUnavailableError, action=RetryAction.FAIL).matches(late.value)


def test_handoff_errors_are_their_core_class():
    never = HandoffOutcome("never", "t1", "wiki: never: zero replicas")
    with pytest.raises(DruidFatalFailure) as raised:
        handoff_result(never, "fail", LOG, sensor=False)
    assert isinstance(raised.value.error, HandoffNeverError)
    timeout = HandoffOutcome("timeout", "t1", "wiki: loading")
    with pytest.raises(DruidWaitTimeoutError, match="not queryable in time: wiki: loading"):
        handoff_result(timeout, "fail", LOG, sensor=False)
    with pytest.raises(DruidSensorTimeout):
        handoff_result(timeout, "fail", LOG, sensor=True)


def test_a_raised_error_unpickles_in_a_fresh_process():
    # the API server or a callback process reading a pickled error never imported the class that raised it
    import subprocess
    import sys

    err = retries_exhausted(DruidTimeoutError("slow", method="GET", url="http://druid/x"), 2, 1.0)
    code = ("import pickle, sys\nfrom druid_ingest.errors import DruidTimeoutError, DruidRetriesExhaustedError\n"
            "back = pickle.loads(sys.stdin.buffer.read())\n"
            "assert isinstance(back, DruidTimeoutError) and isinstance(back, DruidRetriesExhaustedError), back\n"
            "print(type(back).__name__, back.last.method, str(back))\n")
    done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(err), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().strip() == ("RetriesExhaustedTimeoutError GET gave up after 2 attempt(s) in 1.0s; "
                                            "last error: slow [GET http://druid/x]")
