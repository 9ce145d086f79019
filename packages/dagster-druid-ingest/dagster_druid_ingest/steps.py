"""What an ingesting step does, written once for the asset and the ops: submit or adopt, watch, shut down.

Each function is a thin sequence of core calls plus the two things only an orchestrator face knows: where to
log, and what to do when the run is terminated. Termination reaches a step as
``DagsterExecutionInterruptedError`` (Dagster turns the SIGINT it sends a run worker, or SIGTERM on
Kubernetes, into that in the step's main thread, also in multiprocess step workers): the Druid task this step
drives is then shut down, because a terminated run frees its concurrency slot while Druid would keep working.
"""

from __future__ import annotations  # no assets, ops or checks are defined here

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import dagster as dg
from druid_ingest.api import HandoffResult, HandoffTarget
from druid_ingest.ops import (
    DEFAULT_HANDOFF_TIMEOUT,
    DEFAULT_TASK_TIMEOUT,
    AfterFailedPublish,
    ProgressLines,
    StepLine,
    SubmitOutcome,
    TaskOutcome,
    check_after_failed_publish,
    check_on_never,
    shutdown_task,
    submit_lines,
)
from druid_ingest.planning import Plan

if TYPE_CHECKING:
    from druid_ingest.clients import DruidClient

    from dagster_druid_ingest.resource import DruidResource

__all__ = ["Log", "WaitOptions", "check_capacity", "first_look", "progress_logger", "shutdown", "submit",
           "watch_task"]

class Log(Protocol):
    """``context.log`` (a DagsterLogManager) or any logger."""

    def info(self, msg: str, *args: Any, **kwargs: Any) -> Any: ...
    def warning(self, msg: str, *args: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class WaitOptions:
    """How long to wait and what counts as done; the same knobs as the Airflow operator."""

    task_timeout: float = DEFAULT_TASK_TIMEOUT
    handoff_timeout: float = DEFAULT_HANDOFF_TIMEOUT
    on_never: str = "fail"
    allow_empty: bool = False
    shutdown_on_terminate: bool = True
    shutdown_on_timeout: bool = True
    #: "fail": an append whose FAILED attempt may have published is not run again; "resubmit": it is (core rule)
    after_failed_publish: AfterFailedPublish = "fail"

    def __post_init__(self) -> None:
        check_on_never(self.on_never)
        check_after_failed_publish(self.after_failed_publish)


def check_capacity(client: DruidClient, plan: Plan, log: Log) -> None:
    """The core's capacity verdict (``client.check_capacity``): ``error`` fails the step without retry."""
    verdict = client.check_capacity(plan.peak_slots)
    if verdict is None:
        return
    level, message = verdict
    if level == "error":
        raise dg.Failure(description=message, allow_retries=False)
    _say(log, verdict)


def _say(log: Log, line: StepLine) -> None:
    (log.warning if line[0] != "info" else log.info)(line[1])


def submit(client: DruidClient, plan: Plan, log: Log, *,
           allow_empty: bool = False, after_failed_publish: AfterFailedPublish = "fail") -> SubmitOutcome:
    """Adopt the live or succeeded task for this work, or submit the next attempt; log which. A new submit of a
    ``dropExisting`` replace probes its input first (unless ``allow_empty``): DruidEmptyInputError, nothing sent,
    when the sampler reads no row; the probe's line is logged (a warning when it was skipped)."""
    for warning in plan.warnings:
        log.warning(f"Druid spec: {warning}")
    outcome = client.ensure_submitted(plan, allow_empty=allow_empty, after_failed_publish=after_failed_publish)
    for line in submit_lines(outcome, plan.describe(), client.config.console_task_url(outcome.task_id)):
        _say(log, line)
    return outcome


def progress_logger(log: Log, task_id: str) -> Callable[[Any], None]:
    """The ``on_progress`` sink of the core's waits: the core's progress lines, without repeats."""
    return ProgressLines(log.info, task_id)


def shutdown(druid: DruidResource, task_id: str, reason: str, log: Log) -> None:
    """The core's ``shutdown_task`` (two quick tries), its line logged: a failure never hides the real reason."""
    _say(log, shutdown_task(druid.get_client, task_id, reason))


@contextmanager
def shutdown_on_interrupt(druid: DruidResource, task_id: str, log: Log, enabled: bool) -> Iterator[None]:
    """Shut the Druid task down when the step is interrupted (run terminated) inside this block."""
    try:
        yield
    except (dg.DagsterExecutionInterruptedError, KeyboardInterrupt):
        if enabled:
            shutdown(druid, task_id, "the Dagster run was terminated", log)
        else:
            log.warning(f"Run terminated: leaving Druid task {task_id} running (shutdown_on_terminate=False)")
        raise


def watch_task(client: DruidClient, druid: DruidResource, task_id: str, options: WaitOptions,
               log: Log) -> TaskOutcome:
    """The core's task wait, logged per poll; on termination, and on timeout unless told otherwise, the Druid
    task is shut down (a retry then submits the next attempt instead of adopting a task nobody watches)."""
    with shutdown_on_interrupt(druid, task_id, log, options.shutdown_on_terminate):
        task = client.watch_task(task_id, options.task_timeout, druid.poll_schedule(),
                                 on_progress=progress_logger(log, task_id))
    if task.report is not None:
        log.info(task.report.format())
    if task.has_druid_note:
        log.warning(task.message)  # Druid's note on a SUCCESS, e.g. "No valid rows for range partitioning"
    if task.kind == "timeout" and options.shutdown_on_timeout:
        shutdown(druid, task_id, f"not finished within task_timeout={options.task_timeout:.0f}s", log)
    return task


def first_look(client: DruidClient, plan: Plan,
               task: TaskOutcome) -> tuple[HandoffTarget, HandoffResult]:
    """Fix the handoff target of a SUCCESS task (with the lock ceiling its wait saw) and look at the gate once."""
    target = client.handoff_target(task.task_id, plan.datasource, list(plan.intervals), plan.append,
                                   task.version_ceiling)
    return target, client.check_handoff(target)
