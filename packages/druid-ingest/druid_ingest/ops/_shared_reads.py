"""Reads that many waits make at once, as items a driver may batch: a task's state, a datasource's served ids.

A wait yields these where it would yield the one-request operation. The sync driver answers each with that
request (:func:`direct`). The async driver, when its client has a shared poller (``druid_ingest.clients``), hands
them to it: every wait of one event loop on one cluster is then answered by one ``POST
/druid/indexer/v1/taskStatus`` per tick for all due task ids, one served-inventory read per datasource per tick
covering every waiting span, and, for the first looks of a herd (waits resuming after a triggerer restart), one
active-task listing, one ``activeLocks`` POST with a filter per datasource and one history read per datasource.

"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from druid_ingest.api import TaskStatus
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidAuthError, DruidError, DruidNotFoundError, DruidValidationError
from druid_ingest.ops._history import WaitMemory
from druid_ingest.ops.gate.timeline import version_key
from druid_ingest.wire import Operation, SharedRead, Sleep, call

__all__ = [
    "ServedQuery", "StatusQuery", "TaskQuery", "ceiling_from_locks", "direct", "first_look", "holds_lock",
    "listed_ceiling", "merge_status",
]


@dataclass(frozen=True)
class StatusQuery(SharedRead):
    """The current state of ``task_id`` (answered with a TaskStatus; UnknownTaskError if Druid has no such task).

    A bulk answer carries only id, state, duration, errorMsg and location: :func:`merge_status` keeps the rest
    from a full status the wait read before. ``after``: seconds before the look is due (the wait's sleep since
    its last look), so a poller holds a polling wait in one await per look, not a sleep's and then a read's.
    """

    task_id: str
    after: float = 0.0


@dataclass(frozen=True)
class ServedQuery(SharedRead):
    """Ids of ``datasource``'s served segments inside ``span`` (answered with a set of segment ids)."""

    datasource: str
    span: str


@dataclass(frozen=True)
class TaskQuery(SharedRead):
    """A wait's first look: the full status of ``task_id`` (createdTime, datasource, type, runner state) with its
    lock ceiling when it holds its lock (``operations.observe_task``; ``ceiling``: one already known), answered
    with that TaskStatus; UnknownTaskError as ``GET /status`` raises it. ``memory``: the wait's, so a driver
    batching a herd can also fill its duration history once per datasource."""

    task_id: str
    ceiling: str | None = None
    memory: WaitMemory | None = None


def direct(query: SharedRead) -> Operation[Any]:
    """The one-request operation that answers ``query`` on its own."""
    if isinstance(query, StatusQuery):
        read = call(ep.status(query.task_id), ep.parse_status)
        return _after(query.after, read) if query.after > 0 else read
    if isinstance(query, TaskQuery):
        return first_look(query.task_id, query.ceiling)
    if not isinstance(query, ServedQuery):  # pragma: no cover - a new SharedRead this driver does not know
        raise TypeError(f"no direct answer for {query!r}")
    return call(ep.served_segments(query.datasource, query.span), ep.parse_served_segments)


def merge_status(known: TaskStatus, fresh: TaskStatus) -> TaskStatus:
    """``fresh`` (possibly from the bulk endpoint) completed with what ``known`` (a full status) had.

    The bulk answer has no ``runnerStatusCode``: a task with a runner location has been handed to the runner, so
    it holds its lock and runs; without one it is still where ``known`` saw it.
    """
    runner = fresh.runner_state
    if runner is None:
        runner = "RUNNING" if fresh.location and not fresh.is_terminal else known.runner_state
    merged = replace(
        known,
        state=fresh.state,
        runner_state=runner,
        duration_ms=fresh.duration_ms if fresh.duration_ms is not None else known.duration_ms,
        error_msg=fresh.error_msg if fresh.error_msg is not None else known.error_msg,
        location=fresh.location or known.location,
        created_time=fresh.created_time or known.created_time,
        version_ceiling=known.version_ceiling,
    )
    # nothing new (most looks): the status the wait already keeps, so the one just made dies young instead of
    # living until the next look and reaching the collector's oldest generation (thousands of waits look a second)
    return known if merged == known else merged


def _after(seconds: float, op: Operation[Any]) -> Operation[Any]:
    """``op`` once ``seconds`` have passed (a status look due later)."""
    yield Sleep(seconds)
    return (yield from op)


def holds_lock(status: TaskStatus) -> bool:
    """Handed to the runner and not ended: the task holds its time-chunk lock (druid-contract §locks)."""
    return not status.is_terminal and status.runner_state in ("PENDING", "RUNNING")


def first_look(task_id: str, ceiling: str | None = None) -> Operation[TaskStatus]:
    """One wait's first look on its own: ``GET /status``, then, for a task holding its lock, its lock ceiling
    (one ``activeLocks`` POST; where refused, the runner's queue time from the task listing)."""
    status: TaskStatus = yield from call(ep.status(task_id), ep.parse_status)
    if ceiling is None and holds_lock(status) and status.datasource:
        try:
            locks = yield from call(ep.active_locks(status.datasource), ep.parse_active_locks)
            ceiling = ceiling_from_locks(status, locks)
        except (DruidAuthError, DruidNotFoundError, DruidValidationError):
            ceiling = yield from listed_ceiling(status)
        except DruidError:
            ceiling = None
    return replace(status, version_ceiling=ceiling) if ceiling else status


def ceiling_from_locks(status: TaskStatus, locks: list[Any]) -> str | None:
    """The highest version among the task group's live locks (``operations.lock_ceiling``'s first source)."""
    group = status.group_id or status.task_id
    mine = [lock.version for lock in locks if lock.group_id == group and not lock.revoked]
    return max(mine, key=version_key) if mine else None


def listed_ceiling(status: TaskStatus) -> Operation[str | None]:
    """Where ``activeLocks`` is refused: the runner's ``queueInsertionTime``, stamped just after the lock was
    granted, from the status when a task listing gave it, else from the listing of its runner state."""
    if status.queued_time:
        return status.queued_time
    try:
        listed = yield from call(ep.tasks((status.runner_state or "running").lower(), status.datasource),
                                 ep.parse_tasks)
    except DruidError:
        return None
    return next((t.queued_time for t in listed if t.task_id == status.task_id and t.queued_time), None)
