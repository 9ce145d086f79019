"""Every Overlord read that answers with task statuses: one task's, a batch's, a listing's; and the one reader
of Druid's two status shapes they share. Pure builders and parsers, re-exported by ``endpoints``, the one face for
every endpoint.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Container
from dataclasses import replace
from typing import Any

from druid_ingest.api._json_stream import json_items, json_members
from druid_ingest.api._jsonvalues import as_int, as_str, as_text
from druid_ingest.api._lock_endpoints import INDEXER
from druid_ingest.api._models import TaskStatus
from druid_ingest.errors import DruidProtocolError, UnknownTaskError
from druid_ingest.wire import Request, Response, raise_for_status, seg

__all__ = [
    "EPOCH",
    "StatusRow",
    "active_tasks",
    "bulk_status",
    "parse_bulk_rows",
    "parse_bulk_status",
    "parse_status",
    "parse_tasks",
    "parse_tasks_among",
    "status",
    "tasks",
]

EPOCH = "1970-01-01T00:00:00.000Z"  # Druid's placeholder queueInsertionTime

#: a :class:`TaskStatus`'s fields, in order, without ``version_ceiling`` (``TaskStatus(*row)``): what a bulk answer
#: is read into (``parse_bulk_rows``). A plain tuple of strings and numbers is untracked by the collector at its
#: first collection, where a ``TaskStatus`` is tracked for life: a triggerer reads thousands of statuses a second,
#: held across a tick's parse, and those objects were what its polling left in the oldest generation.
StatusRow = tuple[str, str, str | None, str | None, int | None, str | None, str | None, str | None, str | None,
                  str | None, str | None]


def _location(loc: Any) -> str | None:
    host = as_str(loc.get("host")) if isinstance(loc, dict) else None
    if not host:
        return None
    tls_port = as_int(loc.get("tlsPort"))
    port = tls_port if tls_port is not None and tls_port > 0 else as_int(loc.get("port"))
    return f"{host}:{port}"


def _status_from(task_id: str, data: dict[str, Any]) -> TaskStatus:
    return TaskStatus(*_row_from(task_id, data))


def _row_from(task_id: str, data: dict[str, Any]) -> StatusRow:
    """Both TaskStatusPlus (statusCode) and TaskStatus (status) shapes (druid-contract §status, druid-contract
    §bulk-status). The state decides what a wait does, so it must be a string; every other field only informs and
    reads as None when it has another type (``jsonvalues``)."""
    state = data.get("statusCode") or data.get("status")
    if not isinstance(state, str):
        raise DruidProtocolError(f"task {task_id}: no state in status body {str(data)[:200]!r}")
    duration = as_int(data.get("duration"))
    queued = as_str(data.get("queueInsertionTime"))
    tid = as_str(data.get("id")) or task_id
    group = as_str(data.get("groupId"))
    return (
        tid,  # task_id
        sys.intern(state),  # state
        _shared(as_str(data.get("runnerStatusCode"))),  # runner_state
        as_str(data.get("createdTime")),  # created_time
        duration if duration is not None and duration >= 0 else None,  # duration_ms
        as_text(data.get("errorMsg")),  # error_msg
        _shared(as_str(data.get("dataSource"))),  # datasource
        _shared(as_str(data.get("type"))),  # task_type
        _shared(_location(data.get("location"))),  # location
        queued if queued and queued != EPOCH else None,  # queued_time
        tid if group == tid else group,  # group_id
    )


def _shared(value: str | None) -> str | None:
    """One string object for a value many statuses repeat (states, datasources, task types, worker locations): a
    triggerer keeps a status per wait, thousands of them, each parsed from JSON with its own copies."""
    return sys.intern(value) if value is not None else None


# ---- one task, many tasks, every task -------------------------------------------------------------


def status(task_id: str) -> Request:
    return Request("GET", "overlord", f"{INDEXER}/task/{seg(task_id, 'task id')}/status", task_id=task_id)


def parse_status(resp: Response, req: Request) -> TaskStatus:
    assert req.task_id is not None
    if resp.status == 404 and resp.text.lstrip().startswith("{"):
        # druid-contract §status: the method's own 404 {"task": id, "status": null}, seen in a race with the filter.
        raise UnknownTaskError(req.task_id, race=True, status=404, method=resp.method, url=resp.url)
    raise_for_status(resp, req)
    data = resp.json()
    inner = data.get("status") if isinstance(data, dict) else None
    if not isinstance(inner, dict):
        raise UnknownTaskError(req.task_id, status=resp.status, method=resp.method, url=resp.url)
    return _status_from(req.task_id, inner)


def bulk_status(task_ids: list[str]) -> Request:
    """druid-contract §bulk-status. Needs STATE WRITE; callers fall back to per-task GETs when refused."""
    return Request("POST", "overlord", f"{INDEXER}/taskStatus", json_body=list(task_ids))


def parse_bulk_status(resp: Response, req: Request) -> dict[str, TaskStatus]:
    """Unknown ids are omitted by Druid; they are omitted here too."""
    return {tid: TaskStatus(*row) for tid, row in parse_bulk_rows(resp, req).items()}


def parse_bulk_rows(resp: Response, req: Request) -> dict[str, StatusRow]:
    """:func:`parse_bulk_status` as rows (``StatusRow``), for a reader that makes each ``TaskStatus`` only when
    it hands it over (the shared poller). Read one task at a time (``json_members``): a triggerer's bulk answer
    carries thousands of tasks a second, and each parsed body is dropped once read."""
    raise_for_status(resp, req)
    return {tid: _row_from(tid, body) for tid, body in json_members(resp, "bulk status") if isinstance(body, dict)}


def tasks(
    state: str | None = "complete", datasource: str | None = None, limit: int | None = None,
    task_type: str | None = None,
) -> Request:
    """``GET /tasks``; ``state=None`` lists active and complete tasks in one answer."""
    params: list[tuple[str, str]] = [("state", state)] if state else []
    if datasource:
        params.append(("datasource", datasource))
    if task_type:
        params.append(("type", task_type))
    if limit:
        params.append(("max", str(limit)))
    return Request("GET", "overlord", f"{INDEXER}/tasks", params=tuple(params))


#: a ``createdTimeInterval`` that bounds nothing. Without one, Druid lists only the tasks created within
#: ``druid.indexer.storage.recentlyFinishedThreshold`` (PT24H by default: ``TaskStorageConfig``, applied by
#: ``TaskStorageUtils.processTaskLookups``), a daily datasource's last run; with one, Druid reads only its length,
#: as "created within that long before now" (``TaskQueryTool.getTaskStatusPlusList``; Druid 33: a 40-minute
#: interval of the afternoon listed the last 40 minutes' tasks). From 1970 to 3000 means every task, read either way.
ANY_CREATED_TIME = "1970-01-01_3000-01-01"


def completed_tasks(datasource: str | None, limit: int | None, task_type: str | None = None) -> Request:
    """``GET /tasks?state=complete``: the newest ``limit`` completed tasks (of ``datasource``, or of every
    datasource; of ``task_type``, which Druid applies after ``max``: druid-contract §workers), however long ago
    they were created (``ANY_CREATED_TIME``), not only the last day's. Without a limit, Druid's default: the last
    day's (a listing of every task ever is not asked for)."""
    listed = tasks("complete", datasource, None, task_type)
    if not limit:
        return listed
    return replace(listed, params=(*listed.params, ("max", str(limit)), ("createdTimeInterval", ANY_CREATED_TIME)))


def active_tasks() -> Request:
    """Every active task (waiting, pending, running) in one answer: ``GET /tasks?max=0`` lists all states with no
    completed task (druid-contract §first-looks). What a herd of first looks reads instead of one GET each."""
    return Request("GET", "overlord", f"{INDEXER}/tasks", params=(("max", "0"),))


def parse_tasks(resp: Response, req: Request) -> list[TaskStatus]:
    raise_for_status(resp, req)
    data = resp.json()
    return [_status_from(str(t.get("id")), t) for t in data if isinstance(t, dict)] if isinstance(
        data, list
    ) else []


def parse_tasks_among(wanted: Container[str]) -> Callable[[Response, Request], dict[str, TaskStatus]]:
    """A parser like :func:`parse_tasks` that keeps, by id, only the listed tasks in ``wanted``, and reads the
    listing one task at a time: a herd's listing of every active task (10,000 tasks are ~15 MB as parsed JSON
    for a 3.7 MB answer) is never held parsed all at once, which would set the triggerer's peak memory."""

    def parse(resp: Response, req: Request) -> dict[str, TaskStatus]:
        raise_for_status(resp, req)
        found: dict[str, TaskStatus] = {}
        for task in json_items(resp):
            if isinstance(task, dict):
                status = _status_from(str(task.get("id")), task)
                if status.task_id in wanted:
                    found[status.task_id] = status
        return found

    return parse
