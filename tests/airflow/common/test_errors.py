"""The provider's exceptions are Airflow's *and* the core's classes: what Airflow 3.3's ``RetryRule`` (isinstance on
the raised exception, no ``__cause__`` walk) needs to key on ``druid_ingest.wire`` errors; fatal ones stay
``AirflowFailException``, which Airflow never hands to a retry policy."""

from __future__ import annotations

import pickle

import pytest
from airflow.sdk import RetryAction, RetryRule
from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout
from airflow.sdk.module_loading import import_string
from druid_ingest.ops import HandoffOutcome, TaskOutcome
from druid_ingest.wire import (
    DruidAuthError,
    DruidError,
    DruidLeaderUnavailableError,
    DruidRetriesExhaustedError,
    DruidTaskFailedError,
    DruidTimeoutError,
    DruidTransientError,
    DruidWaitTimeoutError,
    HandoffNeverError,
)

from airflow_provider_druid_ingest.common.errors import druid_error_class
from airflow_provider_druid_ingest.common.results import airflow_error, handoff_result, task_result


def test_a_worker_error_is_the_airflow_class_and_the_core_class_with_its_fields():
    err = airflow_error(DruidTimeoutError("read timed out", method="GET", url="http://druid/x"))
    assert type(err).__mro__[1] is AirflowException and not isinstance(err, AirflowFailException)
    assert isinstance(err, DruidTimeoutError) and isinstance(err, DruidTransientError)
    assert str(err) == "read timed out [GET http://druid/x]" and err.method == "GET" and err.retryable is True
    assert type(err).__name__ == "AirflowException[DruidTimeoutError]"


def test_exhausted_http_retries_are_also_the_last_errors_class():
    err = airflow_error(DruidRetriesExhaustedError(DruidLeaderUnavailableError("no leader", status=503), 2, 1.5))
    assert isinstance(err, DruidRetriesExhaustedError) and isinstance(err, DruidLeaderUnavailableError)
    assert err.attempts == 2 and err.last.status == 503
    assert err.retryable is False  # the first core class's flag, not inherited from the last error's
    assert RetryRule(exception="druid_ingest.wire.DruidLeaderUnavailableError", action=RetryAction.RETRY).matches(err)
    assert not RetryRule(exception=DruidAuthError, action=RetryAction.FAIL).matches(err)


def test_fatal_errors_are_airflow_fail_exceptions():
    err = airflow_error(DruidAuthError("denied", status=401))
    assert isinstance(err, AirflowFailException) and isinstance(err, DruidAuthError)


def test_one_class_per_combination_importable_and_picklable():
    err = airflow_error(DruidTimeoutError("slow"))
    assert type(airflow_error(DruidTimeoutError("again"))) is type(err)
    path, args, _ = err.serialize()  # AirflowException.serialize: module.name + message
    assert import_string(path) is type(err) and args == ("slow",)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and str(back) == "slow" and back.message == "slow"
    assert druid_error_class(AirflowException, ()) is AirflowException
    assert druid_error_class(AirflowException, (DruidError, DruidTimeoutError)) is type(err)  # a base is dropped


def test_outcome_errors_name_their_core_class():
    failed = TaskOutcome("failed", "t1", "Druid task t1 FAILED: bad row")
    with pytest.raises(AirflowException) as op:
        task_result(failed, sensor=False)
    assert isinstance(op.value, DruidTaskFailedError) and not isinstance(op.value, AirflowFailException)
    with pytest.raises(AirflowFailException) as sensor:
        task_result(failed, sensor=True)
    assert isinstance(sensor.value, DruidTaskFailedError)
    timeout = TaskOutcome("timeout", "t1", "still RUNNING")
    with pytest.raises(AirflowSensorTimeout) as sensed:
        task_result(timeout, sensor=True)
    assert isinstance(sensed.value, DruidWaitTimeoutError)
    with pytest.raises(AirflowException) as waited:
        task_result(timeout, sensor=False)
    assert isinstance(waited.value, DruidWaitTimeoutError)
    event = TaskOutcome.errored("t1", DruidTimeoutError("slow")).to_dict()
    with pytest.raises(AirflowException) as resumed:
        task_result(TaskOutcome.from_dict(event), sensor=False)
    assert isinstance(resumed.value, DruidTimeoutError)


def test_handoff_errors_name_their_core_class(caplog):
    import logging

    never = HandoffOutcome("never", "t1", "wiki: never: zero replicas")
    with pytest.raises(AirflowFailException) as raised:
        handoff_result(never, "fail", logging.getLogger(__name__), sensor=False)
    assert isinstance(raised.value, HandoffNeverError)
    timeout = HandoffOutcome("timeout", "t1", "wiki: loading")
    with pytest.raises(AirflowException) as late:
        handoff_result(timeout, "fail", logging.getLogger(__name__), sensor=False)
    assert isinstance(late.value, DruidWaitTimeoutError) and not isinstance(late.value, AirflowFailException)


def test_a_class_made_in_another_process_is_found_by_name_in_a_fresh_one():
    # pickle and serialize() name the class ("...errors.AirflowException[DruidTimeoutError]"): a process that never
    # raised that combination (a triggerer, the API server reading a pickled error) must still find it
    import subprocess
    import sys

    err = airflow_error(DruidTimeoutError("slow", method="GET", url="http://druid/x"))
    path, _, _ = err.serialize()
    code = ("import pickle, sys\nfrom airflow.sdk.module_loading import import_string\n"
            "from druid_ingest.wire import DruidTimeoutError\n"
            "back = pickle.loads(sys.stdin.buffer.read())\n"
            "assert isinstance(back, DruidTimeoutError) and back.method == 'GET', back\n"
            f"assert import_string({path!r}) is type(back)\n"
            "print(type(back).__name__, str(back))\n")
    done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(err), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().strip() == "AirflowException[DruidTimeoutError] slow [GET http://druid/x]"


@pytest.mark.parametrize("name", ["nothing", "AirflowException[NotACoreClass]", "ValueError[DruidTimeoutError]",
                                  "AirflowException[DruidError+DruidTimeoutError]"])  # the last: a base it drops
def test_a_name_this_module_would_not_make_is_an_attribute_error(name):
    from airflow_provider_druid_ingest.common import errors

    with pytest.raises(AttributeError, match="has no attribute"):
        getattr(errors, name)
