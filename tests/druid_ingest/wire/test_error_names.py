"""``error_names``/``taxonomy_class``: which core classes a failure stands for, as names a trigger event can carry
(a face raises the same classes on the other side; Airflow's RetryRule matches by isinstance)."""

from __future__ import annotations

from druid_ingest.errors import (
    DruidError,
    DruidFatalError,
    DruidLeaderUnavailableError,
    DruidRetriesExhaustedError,
    DruidServerError,
    DruidTimeoutError,
    DruidWaitTimeoutError,
    DuplicateTaskIdError,
    SpecValidationError,
    error_from_names,
    error_names,
    retries_exhausted,
    taxonomy_class,
)
from druid_ingest.ops import HandoffOutcome, TaskOutcome


def test_own_class_and_for_exhausted_retries_the_last_errors():
    timeout = DruidTimeoutError("read timed out")
    assert error_names(timeout) == ("DruidTimeoutError",)
    assert error_names(DruidRetriesExhaustedError(timeout, 3, 9.0)) == ("DruidRetriesExhaustedError",
                                                                        "DruidTimeoutError")
    assert error_names(DuplicateTaskIdError("t1")) == ("DuplicateTaskIdError",)
    assert error_names(SpecValidationError([])) == ("SpecValidationError",)


def test_a_subclass_outside_the_taxonomy_stands_for_its_base_and_foreign_errors_for_nothing():
    class Mine(DruidLeaderUnavailableError):
        pass

    assert error_names(Mine("503")) == ("DruidLeaderUnavailableError",)
    assert error_names(OSError("boom")) == () and error_names(ValueError("x")) == ()


def test_taxonomy_class_resolves_only_error_classes():
    assert taxonomy_class("DruidTimeoutError") is DruidTimeoutError
    for name in ("RetryPolicy", "is_fatal", "SpecProblem", "NoSuchError", "__name__"):
        assert taxonomy_class(name) is None, name


def test_error_events_carry_the_names_and_rebuild_the_classes():
    exhausted = retries_exhausted(DruidLeaderUnavailableError("no leader", status=503), 2, 1.0)
    event = TaskOutcome.errored("t1", exhausted).to_dict()
    assert event["error_classes"] == ["DruidRetriesExhaustedError", "DruidLeaderUnavailableError"]
    for rebuilt in (TaskOutcome.from_dict(event).error(),
                    HandoffOutcome.from_dict(HandoffOutcome.errored("t1", exhausted).to_dict()).error()):
        assert type(rebuilt) is type(exhausted)
        assert isinstance(rebuilt, DruidRetriesExhaustedError) and isinstance(rebuilt, DruidLeaderUnavailableError)
        assert error_names(rebuilt) == ("DruidRetriesExhaustedError",)  # rebuilt: no ``last`` to name


def test_events_without_or_with_unknown_names_fall_back_to_the_fatal_flag():
    old = {k: v for k, v in TaskOutcome.errored("t1", DruidTimeoutError("x")).to_dict().items()
           if k != "error_classes"}
    assert type(TaskOutcome.from_dict(old).error()) is DruidError
    fatal = {**old, "fatal": True, "error_classes": ["DruidFromTheFuture", 7]}
    assert type(TaskOutcome.from_dict(fatal).error()) is DruidFatalError
    timeout = {"status": "timeout", "druid_task_id": "t1", "message": "still RUNNING"}
    assert type(TaskOutcome.from_dict(timeout).error()) is DruidWaitTimeoutError
    assert type(HandoffOutcome.from_dict(timeout).error()) is DruidWaitTimeoutError


def test_names_rebuild_an_error_with_the_message_and_a_spec_error_never_travels():
    rebuilt = error_from_names(("DruidTimeoutError",), "slow")
    assert type(rebuilt) is DruidTimeoutError and str(rebuilt) == "slow" and rebuilt.status is None
    assert type(error_from_names(("SpecValidationError",), "bad")) is DruidError
    assert type(error_from_names(("DruidWaitTimeoutError", "DruidServerError"), "late")).__mro__[1:3] == (
        DruidWaitTimeoutError, DruidServerError)
