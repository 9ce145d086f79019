"""One mapping from a core outcome (or error) to what an Airflow task raises, for every operator and sensor.

The only difference between the two kinds of task is what a retry can do: the one-shot operator's retry submits
the next attempt, so a FAILED Druid task is an ordinary (retryable) failure there; a sensor only watches, so a
FAILED task fails it for good, and a timeout is a sensor timeout.

A retryable failure is raised as the core error itself, whether it met the worker or a trigger (rebuilt from the
event's class names), so Airflow 3.3's ``RetryRule(exception=DruidTimeoutError, ...)`` matches it; a fatal one is
a :class:`DruidFatalFailure` (``common/errors.py``), which Airflow never retries.
"""

from __future__ import annotations

from typing import Any, NoReturn, Protocol

from druid_ingest.errors import DruidError, SpecValidationError, is_fatal
from druid_ingest.ops import HandoffOutcome, TaskOutcome

from airflow_provider_druid_ingest.common.errors import DruidFatalFailure, DruidSensorTimeout

__all__ = ["handoff_result", "raise_for", "task_result"]

RETRY_NOTE = "\n(an Airflow retry submits the next attempt)"


class Warns(Protocol):
    """What the handoff verdict logs through: a stdlib logger or the Task SDK's structlog one (``self.log``)."""

    def info(self, msg: str, /, *args: Any) -> Any: ...

    def warning(self, msg: str, /, *args: Any) -> Any: ...


def task_result(outcome: TaskOutcome, *, sensor: bool) -> str:
    """The Druid task id when it succeeded; otherwise raises what the outcome stands for.

    The message of a FAILED task is the DruidTaskFailedError text (full errorMsg, row stats, first unparseable
    events): it is what ``on_failure_callback`` and alerts receive.
    """
    if outcome.kind == "success":
        return outcome.task_id
    if outcome.kind == "failed" and not sensor:
        raise outcome.error(RETRY_NOTE)
    error = outcome.error()
    if outcome.kind == "timeout" and sensor:
        raise DruidSensorTimeout(str(error), error) from error
    if outcome.kind == "failed" or outcome.fatal:  # a sensor's FAILED task; a 401/403/404 the trigger met
        raise DruidFatalFailure(str(error), error) from error
    raise error


def handoff_result(
    outcome: HandoffOutcome, on_never: str, log: Warns, *, sensor: bool, allow_empty: bool = False
) -> str:
    """The Druid task id once the core's verdict passes (:meth:`HandoffOutcome.verdict`); else its error: fatal
    ones (empty publish, zero-replica rules, 401/403) without retries, a sensor's timeout as a sensor timeout, the
    rest retryable (a retry adopts the SUCCESS task)."""
    verdict = outcome.verdict(on_never, allow_empty)
    if verdict.error is None:
        (log.warning if verdict.level == "warning" else log.info)("%s", verdict.line)
        return outcome.task_id
    error = verdict.error
    if is_fatal(error):
        raise DruidFatalFailure(str(error), error) from error
    if outcome.kind == "timeout" and sensor:
        raise DruidSensorTimeout(str(error), error) from error
    raise error


def raise_for(exc: DruidError | SpecValidationError, message: str | None = None) -> NoReturn:
    """Raise a core error met in a worker step: fatal ones (waiting or retrying cannot help) as a
    :class:`DruidFatalFailure` with ``message`` (default: the error's text), the rest as they are."""
    if is_fatal(exc):
        raise DruidFatalFailure(message or str(exc), exc) from exc
    raise exc
