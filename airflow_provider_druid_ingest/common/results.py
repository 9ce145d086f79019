"""One mapping from a core outcome (or error) to an Airflow result, for every operator and sensor.

The only difference between the two kinds of task is what a retry can do: the one-shot operator's retry submits
the next attempt, so a FAILED Druid task is an ordinary (retryable) failure there; a sensor only watches, so a
FAILED task fails it for good, and a timeout is a sensor timeout.
"""

from __future__ import annotations

import logging

from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout
from druid_ingest.ops import HandoffOutcome, TaskOutcome
from druid_ingest.wire import DruidError, SpecValidationError, is_fatal

__all__ = ["airflow_error", "handoff_result", "task_result"]

RETRY_NOTE = "\n(an Airflow retry submits the next attempt)"


def task_result(outcome: TaskOutcome, *, sensor: bool) -> str:
    """The Druid task id when it succeeded; otherwise raises the Airflow exception for the outcome.

    The message of a FAILED task is the DruidTaskFailedError text (full errorMsg, row stats, first unparseable
    events): it is what ``on_failure_callback`` and alerts receive.
    """
    if outcome.kind == "success":
        return outcome.task_id
    if outcome.kind == "failed":
        if sensor:
            raise AirflowFailException(outcome.message)
        raise AirflowException(outcome.message + RETRY_NOTE)
    if outcome.kind == "timeout" and sensor:
        raise AirflowSensorTimeout(outcome.message)
    if outcome.fatal:  # a 401/403/404 or refused redirect seen by the trigger: a retry meets it again
        raise AirflowFailException(outcome.message)
    raise AirflowException(outcome.message)


def handoff_result(
    outcome: HandoffOutcome, on_never: str, log: logging.Logger, *, sensor: bool, allow_empty: bool = False
) -> str:
    """The Druid task id once its data is queryable (or never will be, with ``on_never="pass"``).

    A task that published nothing fails without retries (a retry would adopt the same SUCCESS task) unless
    ``allow_empty``; the message carries Druid's own note and what to check.
    """
    if outcome.empty:
        if not allow_empty:
            raise AirflowFailException(str(outcome.empty_error()))
        log.warning("Druid task %s published nothing (allow_empty=True): %s", outcome.task_id, outcome.message)
        return outcome.task_id
    if outcome.kind == "success":
        log.info("Data of Druid task %s is queryable: %s", outcome.task_id, outcome.message)
        return outcome.task_id
    if outcome.kind == "never":
        if on_never == "pass":
            log.warning("Segments of %s will never load (on_never='pass'): %s", outcome.task_id, outcome.message)
            return outcome.task_id
        raise AirflowFailException(str(outcome.error()))
    if outcome.kind == "timeout" and sensor:
        raise AirflowSensorTimeout(outcome.message)
    if outcome.fatal:
        raise AirflowFailException(outcome.message)
    raise AirflowException(outcome.message)  # timeout / error: a retry adopts the SUCCESS task and re-waits


def airflow_error(exc: DruidError | SpecValidationError) -> AirflowException:
    """A core error raised in a worker step: fatal ones (waiting or retrying cannot help) fail without retries."""
    if is_fatal(exc):
        return AirflowFailException(str(exc))
    return AirflowException(str(exc))
