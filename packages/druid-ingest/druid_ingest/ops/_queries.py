"""Reads that many waits make at once, as items a driver may batch: a task's state, a datasource's served ids.

A wait yields :class:`StatusQuery` / :class:`ServedQuery` where it would yield the one-request operation. The
sync driver answers each with that request (:func:`direct`). The async driver, when its client has a shared
poller (``druid_ingest.clients``), hands them to it: every wait of one event loop on one cluster is then answered
by one ``POST /druid/indexer/v1/taskStatus`` per tick for all due task ids, and one served-inventory read per
datasource per tick covering every waiting span.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from druid_ingest.api import TaskStatus
from druid_ingest.api import _endpoints as ep
from druid_ingest.wire import Operation, SharedRead, call

__all__ = ["ServedQuery", "StatusQuery", "direct", "merge_status"]


@dataclass(frozen=True)
class StatusQuery(SharedRead):
    """The current state of ``task_id`` (answered with a TaskStatus; UnknownTaskError if Druid has no such task).

    A bulk answer carries only id, state, duration, errorMsg and location: :func:`merge_status` keeps the rest
    from a full status the wait read before.
    """

    task_id: str


@dataclass(frozen=True)
class ServedQuery(SharedRead):
    """Ids of ``datasource``'s served segments inside ``span`` (answered with a set of segment ids)."""

    datasource: str
    span: str


def direct(query: SharedRead) -> Operation[Any]:
    """The one-request operation that answers ``query`` on its own."""
    if isinstance(query, StatusQuery):
        return call(ep.status(query.task_id), ep.parse_status)
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
    return replace(
        known,
        state=fresh.state,
        runner_state=runner,
        duration_ms=fresh.duration_ms if fresh.duration_ms is not None else known.duration_ms,
        error_msg=fresh.error_msg if fresh.error_msg is not None else known.error_msg,
        location=fresh.location or known.location,
        created_time=fresh.created_time or known.created_time,
        version_ceiling=known.version_ceiling,
    )
