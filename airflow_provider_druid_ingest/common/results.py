"""One mapping from a core outcome (or error) to an Airflow result, for every operator and sensor.

The only difference between the two kinds of task is what a retry can do: the one-shot operator's retry submits
the next attempt, so a FAILED Druid task is an ordinary (retryable) failure there; a sensor only watches, so a
FAILED task fails it for good, and a timeout is a sensor timeout.

Every exception raised here is also the core class(es) the failure stands for (``common/errors.py``), so Airflow
3.3's ``RetryRule(exception=DruidTimeoutError, ...)`` matches it, whether the error met the worker or a trigger.
"""

from __future__ import annotations

from typing import Any, Protocol

from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout
from druid_ingest.ops import HandoffOutcome, TaskOutcome
from druid_ingest.wire import DruidError, SpecValidationError, error_names, is_fatal, taxonomy_class

from airflow_provider_druid_ingest.common.errors import druid_airflow_error

__all__ = ["airflow_error", "handoff_result", "task_result"]

RETRY_NOTE = "\n(an Airflow retry submits the next attempt)"


def _error(kind: type[AirflowException], message: str, outcome: TaskOutcome | HandoffOutcome) -> AirflowException:
    return druid_airflow_error(kind, message, outcome.error_types)


class Warns(Protocol):
    """What the handoff verdict logs through: a stdlib logger or the Task SDK's structlog one (``self.log``)."""

    def info(self, msg: str, /, *args: Any) -> Any: ...

    def warning(self, msg: str, /, *args: Any) -> Any: ...


def task_result(outcome: TaskOutcome, *, sensor: bool) -> str:
    """The Druid task id when it succeeded; otherwise raises the Airflow exception for the outcome.

    The message of a FAILED task is the DruidTaskFailedError text (full errorMsg, row stats, first unparseable
    events): it is what ``on_failure_callback`` and alerts receive.
    """
    if outcome.kind == "success":
        return outcome.task_id
    if outcome.kind == "failed":
        if sensor:
            raise _error(AirflowFailException, outcome.message, outcome)
        raise _error(AirflowException, outcome.message + RETRY_NOTE, outcome)
    if outcome.kind == "timeout" and sensor:
        raise _error(AirflowSensorTimeout, outcome.message, outcome)
    if outcome.fatal:  # a 401/403/404 or refused redirect seen by the trigger: a retry meets it again
        raise _error(AirflowFailException, outcome.message, outcome)
    raise _error(AirflowException, outcome.message, outcome)


def handoff_result(
    outcome: HandoffOutcome, on_never: str, log: Warns, *, sensor: bool, allow_empty: bool = False
) -> str:
    """The Druid task id once the core's verdict passes (:meth:`HandoffOutcome.verdict`); else its error as an
    Airflow exception: fatal ones (empty publish, zero-replica rules, 401/403) without retries, a sensor's timeout
    as a sensor timeout, the rest retryable (a retry adopts the SUCCESS task)."""
    verdict = outcome.verdict(on_never, allow_empty)
    if verdict.error is None:
        (log.warning if verdict.level == "warning" else log.info)("%s", verdict.line)
        return outcome.task_id
    if is_fatal(verdict.error):
        raise _error(AirflowFailException, _text(verdict.error, outcome), outcome)
    if outcome.kind == "timeout" and sensor:
        raise _error(AirflowSensorTimeout, outcome.message, outcome)
    raise _error(AirflowException, outcome.message, outcome)


def _text(error: DruidError, outcome: HandoffOutcome) -> str:
    """A fatal verdict's message: the core error's own text for the gate's verdicts (empty, never), the trigger's
    message for an error it met (it already names the call that failed)."""
    return outcome.message if outcome.kind == "error" else str(error)


def airflow_error(exc: DruidError | SpecValidationError) -> AirflowException:
    """A core error raised in a worker step: fatal ones (waiting or retrying cannot help) fail without retries.
    The result is also ``exc``'s class (and, after exhausted HTTP retries, the last error's); raise it ``from exc``."""
    kind = AirflowFailException if is_fatal(exc) else AirflowException
    core = tuple(cls for cls in map(taxonomy_class, error_names(exc)) if cls is not None)
    return druid_airflow_error(kind, str(exc), core, dict(vars(exc)))
