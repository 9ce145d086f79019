"""The waits, written once: a Druid task to its end, its segments to queryable, and both in a row.

Each wait owns its absolute deadline (on an injectable clock), its poll schedule and its progress: it yields
:class:`~.exchange.Progress` items (a poll's status and, now and then, its parsed report) for the driver to
hand to the caller, and returns one typed outcome (``outcomes.py``). The sync client drives these in a worker,
the async client in a trigger; no other poll loop exists.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .exchange import Operation, Progress, Sleep
from .models import HandoffResult, HandoffTarget, TaskStatus
from .operations import check_handoff, handoff_target, observe_task, report_summary
from .outcomes import HandoffOutcome, IngestionOutcome, TaskOutcome
from .reports import ReportSummary
from .retry import PollSchedule

__all__ = ["DEFAULT_REPORT_EVERY", "TaskProgress", "watch_handoff", "watch_ingestion", "watch_task"]

#: seconds between report fetches while a task runs (each poll is one status call; a report is a second one)
DEFAULT_REPORT_EVERY = 120.0
Clock = Callable[[], float]


@dataclass(frozen=True)
class TaskProgress:
    """One poll of a running task: its status, and its live report when this poll fetched one."""

    status: TaskStatus
    report: ReportSummary | None = None

    def line(self) -> str:
        """One log line: phase, and row counts when a report came with this poll."""
        head = f"Druid task {self.status.task_id} {self.status.phase}"
        return f"{head}: {self.report.progress_line()}" if self.report is not None else head


def watch_task(
    task_id: str,
    deadline: float,
    schedule: PollSchedule | None = None,
    clock: Clock = time.time,
    report_every: float = DEFAULT_REPORT_EVERY,
    ceiling: str | None = None,
) -> Operation[TaskOutcome]:
    """Poll until SUCCESS/FAILED or ``deadline`` (``clock()`` time); the outcome holds the final report.

    Each poll is one ``/status`` (plus, the first time the task is seen holding its lock, one lock lookup:
    ``operations.lock_ceiling``; pass a ``ceiling`` already known to skip it). While it runs, the report is
    fetched at most every ``report_every`` seconds. A deadline already passed makes it one look.
    """
    schedule = schedule or PollSchedule()
    started = clock()
    polls = 0
    reported_at: float | None = None
    while True:
        status = yield from observe_task(task_id, ceiling)
        ceiling = status.version_ceiling
        if status.is_terminal:
            return TaskOutcome.terminal(status, (yield from report_summary(task_id)))
        report = None
        now = clock()
        if status.runner_state == "RUNNING" and (reported_at is None or now - reported_at >= report_every):
            report = yield from report_summary(task_id)
            reported_at = now
        yield Progress(TaskProgress(status, report))
        remaining = deadline - clock()
        if remaining <= 0:
            return TaskOutcome.timed_out(status, clock() - started)
        polls += 1
        yield Sleep(min(schedule.delay(polls), remaining))


def watch_handoff(
    target: HandoffTarget,
    deadline: float,
    schedule: PollSchedule | None = None,
    clock: Clock = time.time,
) -> Operation[HandoffOutcome]:
    """Check the gate until done (loaded, nothing, superseded), ``never``, or ``deadline``.

    Yields each pending :class:`~.models.HandoffResult` as progress.
    """
    schedule = schedule or PollSchedule()
    polls = 0
    while True:
        result: HandoffResult = yield from check_handoff(target)
        if result.done or result.state == "never":
            return HandoffOutcome.of(target.task_id, target.datasource, result)
        yield Progress(result)
        remaining = deadline - clock()
        if remaining <= 0:
            return HandoffOutcome.of(target.task_id, target.datasource, result)  # kind "timeout"
        polls += 1
        yield Sleep(min(schedule.delay(polls), remaining))


def watch_ingestion(
    task_id: str,
    datasource: str,
    intervals: list[str],
    append: bool,
    task_deadline: float,
    handoff_timeout: float | None,
    schedule: PollSchedule | None = None,
    clock: Clock = time.time,
    report_every: float = DEFAULT_REPORT_EVERY,
) -> Operation[IngestionOutcome]:
    """The task wait, then (after SUCCESS, unless ``handoff_timeout`` is None) the handoff wait, in one go.

    ``task_deadline`` is absolute; the handoff gets ``handoff_timeout`` seconds from the moment the task wait
    ends, but never past ``task_deadline + handoff_timeout`` (a rebuilt trigger cannot extend it much). The
    handoff target uses the lock ceiling the task wait observed, so the gate can tell this task's version from a
    later replace's. ``datasource``/``intervals`` may be empty: the task's own are used.
    """
    task = yield from watch_task(task_id, task_deadline, schedule, clock, report_every)
    if task.kind != "success" or handoff_timeout is None:
        return IngestionOutcome(task)
    target = yield from handoff_target(task_id, datasource, intervals, append, task.version_ceiling)
    deadline = min(clock(), task_deadline) + handoff_timeout
    handoff = yield from watch_handoff(target, deadline, schedule, clock)
    return IngestionOutcome(task, handoff)
