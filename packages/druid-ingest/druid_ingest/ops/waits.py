"""The waits, written once: a Druid task to its end, and it and its segments to queryable in a row (the
handoff wait itself is ``handoff_wait``).

Each wait owns its absolute deadline (on an injectable clock), its poll schedule and its progress: it yields
:class:`~.exchange.Progress` items (a poll's status and, now and then, its parsed report) for the driver to
hand to the caller, and returns one typed outcome (``outcomes.py``). The sync client drives these in a worker,
the async client in a trigger; no other poll loop exists.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from druid_ingest.api import HandoffTarget, ReportSummary, TaskStatus
from druid_ingest.errors import DruidError, UnknownTaskError, error_names
from druid_ingest.ops._history import WaitMemory, task_history
from druid_ingest.ops._lock_holders import HOLDERS_AFTER, HOLDERS_EVERY, lock_holders
from druid_ingest.ops._outage import Outage, is_transient
from druid_ingest.ops._outcomes import IngestionOutcome, TaskOutcome
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.ops._schedule import PredictedSchedule, fixed_delay
from druid_ingest.ops._shared_reads import StatusQuery, TaskQuery, holds_lock, merge_status
from druid_ingest.ops.gate.steps import handoff_target, target_for
from druid_ingest.ops.handoff_wait import watch_handoff
from druid_ingest.ops.operations import lock_ceiling, report_summary
from druid_ingest.planning import parse_instant
from druid_ingest.wire import Operation, Progress, Sleep

__all__ = [
    "DEFAULT_REPORT_EVERY", "MAX_UNKNOWN_LOOKS", "TaskProgress", "watch_ingestion", "watch_task",
]

#: seconds between report fetches while a task runs (each poll is one status call; a report is a second one):
#: progress logging at most every few minutes, plus the final report
DEFAULT_REPORT_EVERY = 300.0
Clock = Callable[[], float]
#: consecutive looks a task may answer "unknown" in Druid's race shape (or, once seen, go missing) before the wait
#: believes it (druid-contract §status)
MAX_UNKNOWN_LOOKS = 5


@dataclass(frozen=True)
class TaskProgress:
    """One poll of a running task: its status, and its live report when this poll fetched one."""

    status: TaskStatus
    report: ReportSummary | None = None
    #: while it waits for its locks: the tasks holding them (``_lock_holders``), "" when not asked or none
    waiting_on: str = ""

    def line(self) -> str:
        """One log line: phase, and row counts when a report came with this poll (or what it waits behind)."""
        head = f"Druid task {self.status.task_id} {self.status.phase}"
        if self.report is not None:
            return f"{head}: {self.report.progress_line()}"
        return f"{head}: {self.waiting_on}" if self.waiting_on else head


def watch_task(
    task_id: str,
    deadline: float,
    schedule: PollSchedule | None = None,
    clock: Clock = time.time,
    report_every: float = DEFAULT_REPORT_EVERY,
    ceiling: str | None = None,
    memory: WaitMemory | None = None,
    first_look: float = 0.0,
) -> Operation[TaskOutcome]:
    """Poll until SUCCESS/FAILED or ``deadline`` (``clock()`` time); the outcome holds the final report.

    Each poll is one ``/status`` (plus, the first time the task is seen holding its lock, one lock lookup:
    ``operations.lock_ceiling``; pass a ``ceiling`` already known to skip it). With ``memory`` (the client's
    :class:`WaitMemory`: its cluster and caches) the datasource's recent durations plan the polls
    (``schedule.py``); otherwise, and while the task is not running yet, ``schedule`` (fixed backoff) does. The
    report is fetched at most every ``report_every`` seconds while it runs, and once at the end. A deadline
    already passed makes it one look. A look that fails transiently (one call's retries exhausted: Overlord
    down, 5xx, refused) does not end the wait: it looks again until ``deadline`` and logs the outage (``_outage``).
    ``first_look``: seconds before the first look (a task submitted a moment ago cannot have ended yet).
    """
    return _watch(_TaskWait(task_id, deadline, schedule or PollSchedule(), clock, report_every, ceiling, memory,
                            first_look))


def _watch(wait: _TaskWait) -> Operation[TaskOutcome]:
    """The wait: its looks, and the sleep between two. Only this small frame and the wait's state are kept while
    a wait sleeps and while it awaits its status (a herd's ten thousand waits await their first looks at once): a
    triggerer keeps one of each per deferred wait. A look's temporaries live in :meth:`_TaskWait.seen`'s frame,
    gone once it returns."""
    if wait.first_look > 0:
        yield wait.first_sleep()
    wait.start()
    after = 0.0
    while True:
        try:
            status = yield wait.query(after)
        except DruidError as exc:
            step = wait.failed(exc)
            if step is None:
                raise
        else:
            step = yield from wait.seen(status)
            del status  # the answer as read: ``seen`` keeps what the wait needs of it, not it through the sleep
        if isinstance(step, TaskOutcome):
            return step
        if wait.known is None:  # the next look is a first look again: it is read once the sleep is over
            yield Sleep(step)
            after = 0.0
        else:  # the sleep travels with the read: a poller holds the wait in one await until its answer
            after = step


class _TaskWait:
    """What a task wait keeps from one look to the next (see :func:`watch_task`)."""

    __slots__ = ("ceiling", "clock", "deadline", "first_look", "history_key", "known", "memory", "outage", "past_end",
                 "planner", "polls", "previous_look", "report_every", "reported_at", "running_since", "schedule",
                 "started", "task_id", "unknown_looks", "waiting")

    def __init__(self, task_id: str, deadline: float, schedule: PollSchedule, clock: Clock, report_every: float,
                 ceiling: str | None, memory: WaitMemory | None, first_look: float) -> None:
        self.task_id = task_id
        self.deadline = deadline
        self.schedule = schedule
        self.clock = clock
        self.report_every = report_every
        self.ceiling = ceiling
        self.memory = memory
        self.first_look = first_look

    def first_sleep(self) -> Sleep:
        """The sleep before the first look (``first_look``), within the deadline."""
        return Sleep(min(self.first_look, max(0.0, self.deadline - self.clock())))

    def start(self) -> None:
        """At the first look (after ``first_look``'s sleep)."""
        started = self.started = self.clock()
        self.polls = self.past_end = 0
        self.planner: PredictedSchedule | None = None
        self.history_key: tuple[str, str, str] | None = None  # set once the wait planned from the history
        self.running_since: float | None = None
        # just submitted: it started running between the submit and the first look (its createdTime would err
        # early by its time in the queue, and a window planned from it end before late runs do)
        self.previous_look = started - self.first_look if self.first_look > 0 else started
        self.reported_at = started  # the first progress report comes after report_every, not at the first look
        self.known: TaskStatus | None = None
        self.unknown_looks = 0
        # made at the first failed look, and lock waits at the first WAITING one: most waits never need either,
        # and a triggerer holds thousands of waits
        self.outage: Outage | None = None
        self.waiting: LockWait | None = None

    def forget_stale_history(self, status: TaskStatus) -> None:
        """A SUCCESS is the only thing that changes the datasource's history: tell the memory (a kept "no history"
        is dropped, so the next wait reads Druid's again: :meth:`HistoryCache.ran`). A run the kept history did not
        span (quicker than its 5th percentile, longer than its longest) shows the runs changed (a bigger day, a
        backfill of small ones): drop the history too, instead of planning from the old runs for its TTL."""
        memory = self.memory
        if memory is None or status.state != "SUCCESS":
            return
        key = self.history_key
        if key is None and status.datasource and status.task_type:  # ended before the first look
            key = (memory.cluster, status.datasource, status.task_type)
        if key is None:
            return
        memory.durations.ran(key)
        planner, ran = self.planner, status.duration_ms
        if planner is not None and ran and ran > 0 and not planner.history.low <= ran / 1000 <= planner.history.longest:
            memory.durations.drop(key)

    def query(self, after: float = 0.0) -> TaskQuery | StatusQuery:
        """This look's read. The first look is a full status (createdTime, datasource, runner state) with its lock
        ceiling, and a herd's first looks share one listing and one lock read; later looks may be answered by one
        bulk call shared with every other wait (``_shared_reads``), ``after`` seconds from now."""
        if self.known is None:
            return TaskQuery(self.task_id, self.ceiling, self.memory)
        return StatusQuery(self.task_id, after)

    def failed(self, exc: DruidError) -> TaskOutcome | float | None:
        """The look's read raised ``exc``: the seconds until the next look, the outcome when the deadline ends
        the wait, or None when ``exc`` ends it."""
        clock, deadline, schedule, known = self.clock, self.deadline, self.schedule, self.known
        if isinstance(exc, UnknownTaskError):
            # Druid's race-shaped 404 {"status": null}, or a task already seen going missing for a look: transient,
            # a bounded number of times; a plain "Cannot find any task" for a task never seen is an answer.
            self.unknown_looks += 1
            if not (exc.race or known is not None) or self.unknown_looks > MAX_UNKNOWN_LOOKS or clock() >= deadline:
                return None
            return min(schedule.delay(self.unknown_looks), max(0.0, deadline - clock()))
        if not is_transient(exc):
            return None
        now = clock()
        outage = self.outage = self.outage or Outage(f"Druid task {self.task_id}")
        outage.failed(exc, now)
        if now >= deadline:  # the wait's own deadline, never one call's retry budget, ends it
            if known is not None:
                timed_out = TaskOutcome.timed_out(known, now - self.started)
                return replace(timed_out, message=timed_out.message + outage.describe(now),
                               error_classes=error_names(exc))
            return None  # never seen: the outage's own error (its class is what a retry rule keys on)
        self.polls += 1
        return min(fixed_delay(schedule, self.polls), deadline - now)

    def seen(self, status: TaskStatus) -> Operation[TaskOutcome | float]:
        """The rest of a look, from its read's answer: the wait's outcome when it ends here, else the seconds
        until the next look."""
        task_id, clock, deadline, schedule = self.task_id, self.clock, self.deadline, self.schedule
        known = self.known
        if known is not None:
            status = merge_status(known, status)
        if self.outage is not None:
            self.outage.recovered(clock())
        self.unknown_looks = 0
        ceiling = self.ceiling
        if known is not None:
            if ceiling is None and holds_lock(status):
                ceiling = yield from lock_ceiling(status)
            if status.version_ceiling != ceiling:
                status = replace(status, version_ceiling=ceiling)
        else:
            status = _own_id(status, task_id)
        self.known = status
        self.ceiling = status.version_ceiling
        now = clock()
        if status.is_terminal:  # it ended after the previous look (or the submit): the handoff wait's reference
            self.forget_stale_history(status)
            outcome = TaskOutcome.terminal(status, (yield from report_summary(task_id)))
            return replace(outcome, ended_after=self.previous_look)
        memory = self.memory
        if self.history_key is None and memory is not None and status.datasource and status.task_type:
            self.history_key = (memory.cluster, status.datasource, status.task_type)
            history = yield from task_history(*self.history_key, memory.durations)
            self.planner = PredictedSchedule(history, schedule) if history is not None else None
        if self.running_since is None and status.runner_state == "RUNNING":
            polls = self.polls if self.first_look <= 0 else self.polls + 1
            self.running_since, start_error = _run_start(status, polls, self.previous_look, now)
            if self.planner is not None:
                self.planner = replace(self.planner, start_error=start_error)
        self.previous_look = now
        report = None
        planner, running_since = self.planner, self.running_since
        near_end = planner is not None and running_since is not None and planner.near_end(now - running_since)
        if status.runner_state == "RUNNING" and now - self.reported_at >= self.report_every and not near_end:
            report = yield from report_summary(task_id)
            self.reported_at = now
        if status.runner_state == "WAITING":
            waiting = self.waiting = self.waiting or LockWait()
            waiting_on = yield from waiting.look(status, now)
        else:
            waiting_on = self.waiting.left() if self.waiting is not None else ""
        yield Progress(TaskProgress(status, report, waiting_on))
        remaining = deadline - clock()
        if remaining <= 0:
            return TaskOutcome.timed_out(status, clock() - self.started)
        self.polls += 1
        if planner is not None and running_since is not None:
            running_for = clock() - running_since
            self.past_end += running_for >= planner.window_end
            delay = planner.next_delay(running_for, self.past_end)
        else:
            delay = fixed_delay(schedule, self.polls)
        return min(delay, remaining)


@dataclass
class LockWait:
    """How long a task has been WAITING for its locks, and who holds them (asked after ``HOLDERS_AFTER``
    seconds, then every ``HOLDERS_EVERY``; never again once Druid refused to say)."""

    since: float | None = None
    asked_at: float | None = None
    refused: bool = False
    holders: str = ""

    def look(self, status: TaskStatus, now: float) -> Operation[str]:
        self.since = now if self.since is None else self.since
        due = self.asked_at is None or now - self.asked_at >= HOLDERS_EVERY
        if not self.refused and due and now - self.since >= HOLDERS_AFTER:
            found = yield from lock_holders(status)
            self.asked_at, self.refused, self.holders = now, found is None, found or ""
        return self.holders

    def left(self) -> str:
        self.since = self.asked_at = None
        self.holders = ""
        return ""


def _own_id(status: TaskStatus, task_id: str) -> TaskStatus:
    """The first status with the wait's own task-id string (and group id, when the task is its own group)
    instead of the answer's copies: the wait keeps its last status, and later ones, merged into it, keep these.
    Its ``queued_time`` is dropped once the lock ceiling is known: it only stands in for a ceiling where
    ``activeLocks`` is refused (``listed_ceiling``), and a triggerer keeps a status per wait for the whole wait."""
    queued = status.queued_time if status.version_ceiling is None else None
    if status.task_id != task_id or status.task_id is task_id:
        return status if queued is status.queued_time else replace(status, queued_time=queued)
    group = task_id if status.group_id == task_id else status.group_id
    return replace(status, task_id=task_id, group_id=group, queued_time=queued)


def _run_start(status: TaskStatus, polls: int, previous_look: float, now: float) -> tuple[float, float]:
    """When the task probably started running, and how far off that may be: its createdTime if it was already
    running at the first look (it may have waited in the queue, so this errs early: polls come sooner, never
    later; error 0), else midway since the last look that saw it waiting (error: half that gap)."""
    if polls == 0 and status.created_time:
        try:
            return min(now, parse_instant(status.created_time).timestamp()), 0.0
        except ValueError:
            pass
    return (previous_look + now) / 2, (now - previous_look) / 2


def _ended_at(task: TaskOutcome, target: HandoffTarget, seen: float) -> float:
    """When the task probably ended (``clock()`` time), for the handoff's looks and its recorded delay: not the
    look that saw it ended (``seen``, late by up to a poll gap, ~55 s before a planned window) but the latest of
    two times it cannot have ended before: the last look that saw it active, and the target's ``ended_at``
    (createdTime + duration: early by its time in the queue). A Druid clock ahead of ours is clipped to ``seen``."""
    found = task.ended_after if task.ended_after is not None else seen
    if target.ended_at is not None:
        found = max(found, target.ended_at)
    return min(seen, found)


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
    memory: WaitMemory | None = None,
    submitted_at: float | None = None,
) -> Operation[IngestionOutcome]:
    """The task wait, then (after SUCCESS, unless ``handoff_timeout`` is None) the handoff wait, in one go.

    ``task_deadline`` is absolute; the handoff gets ``handoff_timeout`` seconds from the moment the task wait
    ends, but never past ``task_deadline + handoff_timeout`` (a rebuilt trigger cannot extend it much). The
    handoff target uses the lock ceiling the task wait observed, so the gate can tell this task's version from a
    later replace's; its looks are ``watch_handoff``'s, from the end this wait saw.
    ``datasource``/``intervals`` may be empty: the task's own are used. ``submitted_at``: when
    this wait's caller submitted the task (``clock()`` time); its first look comes ``poll_interval`` after that,
    the earliest a spec Druid fails at once is seen anyway (a look right after the submit only finds it queued).
    """
    first = max(0.0, submitted_at + (schedule or PollSchedule()).initial - clock()) if submitted_at is not None else 0.0
    task = yield from watch_task(task_id, task_deadline, schedule, clock, report_every, memory=memory,
                                 first_look=first)
    if task.kind != "success" or handoff_timeout is None:
        return IngestionOutcome(task)
    if task.status is not None:  # the wait's own terminal status and report: no second read
        target = yield from target_for(task.status, task.report, datasource, intervals, append, task.version_ceiling)
    else:
        target = yield from handoff_target(task_id, datasource, intervals, append, task.version_ceiling)
    ended = clock()
    deadline = min(ended, task_deadline) + handoff_timeout
    handoff = yield from watch_handoff(target, deadline, schedule, clock, memory, _ended_at(task, target, ended))
    return IngestionOutcome(task, handoff)
