"""Pure builders and parsers, one pair per Druid endpoint this package touches.

A builder returns a :class:`~.http.Request`; a parser takes the :class:`~.http.Response` the transport
got for it and returns a model or raises from the error taxonomy. Sections (``druid-contract §...``) refer to
``docs/druid-contract.md``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Container, Iterator
from typing import Any

from druid_ingest.api._jsonvalues import as_dict, as_int, as_str, as_text
from druid_ingest.api._lock_endpoints import INDEXER, active_locks, active_locks_of, parse_active_locks
from druid_ingest.api._models import ClusterCapacity, InputSample, TaskStatus, WorkerInfo
from druid_ingest.api._msq_endpoints import parse_sql_task, sql_task
from druid_ingest.api._segment_endpoints import (
    COORD,
    broker_candidates,
    data_servers,
    handoff_complete,
    parse_broker_candidates,
    parse_data_servers,
    parse_handoff_complete,
    parse_segment_update,
    parse_served_segments,
    parse_used_segments,
    served_segments,
    used_segments,
)
from druid_ingest.api._version_endpoint import DruidVersion, druid_version, parse_druid_version
from druid_ingest.planning import SQL_TASK_PATH
from druid_ingest.wire import DruidProtocolError, Request, Response, Service, UnknownTaskError, raise_for_status, seg

__all__ = [
    "COORD",
    "EPOCH",
    "INDEXER",
    "PROBE_TASK_ID",
    "SAMPLER_MAX_ROWS",
    "DruidVersion",
    "HealthService",
    "active_locks",
    "active_locks_of",
    "active_tasks",
    "broker_candidates",
    "bulk_status",
    "data_servers",
    "druid_version",
    "handoff_complete",
    "health",
    "is_leader",
    "parse_active_locks",
    "parse_broker_candidates",
    "parse_bulk_status",
    "parse_data_servers",
    "parse_druid_version",
    "parse_handoff_complete",
    "parse_health",
    "parse_is_leader",
    "parse_permitted",
    "parse_reports",
    "parse_sampler",
    "parse_segment_update",
    "parse_served_segments",
    "parse_shutdown",
    "parse_sql",
    "parse_sql_task",
    "parse_started",
    "parse_status",
    "parse_submit",
    "parse_task_payload",
    "parse_tasks",
    "parse_tasks_among",
    "parse_used_segments",
    "parse_workers",
    "reports",
    "sampler",
    "served_segments",
    "shutdown",
    "sql",
    "sql_task",
    "status",
    "submit",
    "task_payload",
    "tasks",
    "used_segments",
    "workers",
]

EPOCH = "1970-01-01T00:00:00.000Z"  # Druid's placeholder queueInsertionTime


def _location(loc: Any) -> str | None:
    host = as_str(loc.get("host")) if isinstance(loc, dict) else None
    if not host:
        return None
    tls_port = as_int(loc.get("tlsPort"))
    port = tls_port if tls_port is not None and tls_port > 0 else as_int(loc.get("port"))
    return f"{host}:{port}"


def _status_from(task_id: str, data: dict[str, Any]) -> TaskStatus:
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
    return TaskStatus(
        task_id=tid,
        state=sys.intern(state),
        runner_state=_shared(as_str(data.get("runnerStatusCode"))),
        created_time=as_str(data.get("createdTime")),
        duration_ms=duration if duration is not None and duration >= 0 else None,
        error_msg=as_text(data.get("errorMsg")),
        datasource=_shared(as_str(data.get("dataSource"))),
        task_type=_shared(as_str(data.get("type"))),
        location=_shared(_location(data.get("location"))),
        queued_time=queued if queued and queued != EPOCH else None,
        group_id=tid if group == tid else group,
    )


def _shared(value: str | None) -> str | None:
    """One string object for a value many statuses repeat (states, datasources, task types, worker locations): a
    triggerer keeps a status per wait, thousands of them, each parsed from JSON with its own copies."""
    return sys.intern(value) if value is not None else None


# ---- Overlord -----------------------------------------------------------------------------------


def submit(spec: dict[str, Any]) -> Request:
    """druid-contract §submit. The spec carries its own pinned ``id``."""
    return Request("POST", "overlord", f"{INDEXER}/task", json_body=spec)


def parse_started(resp: Response, req: Request) -> str:
    """The task id a plan's :meth:`~druid_ingest.planning.Plan.submit_request` started, by where it went: the
    Overlord's task submission, or MSQ's ``sql/task`` (its own answer shape and duplicate-id rule)."""
    return parse_sql_task(resp, req) if req.path == SQL_TASK_PATH else parse_submit(resp, req)


def parse_submit(resp: Response, req: Request) -> str:
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, dict) or not data.get("task"):
        raise DruidProtocolError(f"submit answered without a task id: {resp.text[:200]!r}", url=resp.url)
    return str(data["task"])


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


#: a task id no ingestion of this package produces (its ids end with a hash), for permission probes
PROBE_TASK_ID = "__druid_ingest_permission_probe__"


def parse_permitted(resp: Response, req: Request) -> bool:
    """False for 403 (authenticated, not permitted), True for any 2xx; anything else raises as usual."""
    if resp.status == 403:
        return False
    raise_for_status(resp, req)
    return True


def parse_bulk_status(resp: Response, req: Request) -> dict[str, TaskStatus]:
    """Unknown ids are omitted by Druid; they are omitted here too."""
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, dict):
        raise DruidProtocolError(f"bulk status is not an object: {resp.text[:200]!r}", url=resp.url)
    return {tid: _status_from(tid, body) for tid, body in data.items() if isinstance(body, dict)}


def reports(task_id: str) -> Request:
    return Request("GET", "overlord", f"{INDEXER}/task/{seg(task_id, 'task id')}/reports", task_id=task_id)


def parse_reports(resp: Response, req: Request) -> dict[str, Any] | None:
    """druid-contract §reports: 404 "No task reports were found" (not yet written) is ``None``, not an error."""
    if resp.status == 404 and "No task reports" in resp.text:
        return None
    raise_for_status(resp, req)
    data = resp.json()
    return data if isinstance(data, dict) else None


def shutdown(task_id: str) -> Request:
    return Request("POST", "overlord", f"{INDEXER}/task/{seg(task_id, 'task id')}/shutdown", task_id=task_id)


def parse_shutdown(resp: Response, req: Request) -> None:
    """druid-contract §shutdown: 200 for any known id, running or not."""
    raise_for_status(resp, req)


def task_payload(task_id: str) -> Request:
    return Request("GET", "overlord", f"{INDEXER}/task/{seg(task_id, 'task id')}", task_id=task_id)


def parse_task_payload(resp: Response, req: Request) -> dict[str, Any]:
    raise_for_status(resp, req)
    data = resp.json()
    payload = data.get("payload") if isinstance(data, dict) else None
    return payload if isinstance(payload, dict) else {}


def workers() -> Request:
    return Request("GET", "overlord", f"{INDEXER}/workers")


def parse_workers(resp: Response, req: Request) -> ClusterCapacity:
    """druid-contract §workers: ImmutableWorkerInfo[]; each worker's ``capacity`` is its task slots."""
    raise_for_status(resp, req)
    data = resp.json()
    found = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        worker = as_dict(item.get("worker"))
        found.append(
            WorkerInfo(
                host=as_str(worker.get("host")) or "?",
                capacity=max(0, as_int(worker.get("capacity")) or 0),
                used=max(0, as_int(item.get("currCapacityUsed")) or 0),
                category=as_str(worker.get("category")),
                version=as_str(worker.get("version")),
            )
        )
    return ClusterCapacity(
        workers=tuple(found),
        total_slots=sum(w.capacity for w in found),
        used_slots=sum(w.used for w in found),
    )


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
        for task in _json_items(resp):
            if isinstance(task, dict):
                status = _status_from(str(task.get("id")), task)
                if status.task_id in wanted:
                    found[status.task_id] = status
        return found

    return parse


_DECODER = json.JSONDecoder()


def _json_items(resp: Response) -> Iterator[Any]:
    """The items of a JSON array body, decoded one by one; none for any other JSON value. A body that is not
    JSON raises as :meth:`Response.json` does."""
    try:
        text = resp.body.decode("utf-8", errors="surrogatepass") if resp.body[:1] == b"[" else ""
    except UnicodeDecodeError:
        text = ""
    if not text:  # anything else (a BOM, blanks, another encoding, an object, no JSON): as Response.json reads it
        data = resp.json()
        yield from data if isinstance(data, list) else ()
        return
    try:
        at = _blank(text, 1)
        if text.startswith("]", at):
            at += 1
        else:
            while True:
                item, at = _DECODER.raw_decode(text, at)
                yield item
                at = _blank(text, at)
                if text.startswith("]", at):
                    at += 1
                    break
                if not text.startswith(",", at):
                    raise ValueError(f"expected ',' or ']' at {at}")
                at = _blank(text, at + 1)
        if text[_blank(text, at):]:
            raise ValueError(f"extra data at {at}")
    except ValueError:
        resp.json()  # raises its DruidProtocolError
        raise


def _blank(text: str, at: int) -> int:
    """The first position from ``at`` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def is_leader() -> Request:
    return Request("GET", "overlord", f"{INDEXER}/isLeader")


def parse_is_leader(resp: Response, req: Request) -> bool:
    """druid-contract §submit: 200 {"leader": true} or 404 {"leader": false}."""
    if resp.status == 404 and b"leader" in resp.body:
        return False
    raise_for_status(resp, req)
    data = resp.json()
    return bool(isinstance(data, dict) and data.get("leader"))


HealthService = Service


def health(service: Service = "overlord") -> Request:
    return Request("GET", service, "/status/health")


def parse_health(resp: Response, req: Request) -> bool:
    raise_for_status(resp, req)
    return resp.text.strip() == "true"


#: ``SamplerConfig``'s ceiling: more is a 400 ``numRows must be <= 5000``
SAMPLER_MAX_ROWS = 5000


def sampler(
    data_schema: dict[str, Any],
    input_source: dict[str, Any],
    input_format: dict[str, Any] | None,
    num_rows: int,
    timeout_ms: int,
    read_timeout: float | None = None,
) -> Request:
    """druid-contract §sampler: ``SamplerResource`` takes only the ``index`` sampler spec (``index_parallel`` is an
    unknown type id, 400), so the parts of a native spec travel in an ``index`` ioConfig and tuningConfig."""
    if not 0 < num_rows <= SAMPLER_MAX_ROWS:
        raise ValueError(f"num_rows: {num_rows!r} is not in 1..{SAMPLER_MAX_ROWS} (Druid's SamplerConfig limit)")
    io: dict[str, Any] = {"type": "index", "inputSource": input_source}
    if input_format is not None:
        io["inputFormat"] = input_format
    body = {
        "type": "index",
        "spec": {"dataSchema": data_schema, "ioConfig": io, "tuningConfig": {"type": "index"}},
        "samplerConfig": {"numRows": num_rows, "timeoutMs": timeout_ms},
    }
    return Request("POST", "overlord", f"{INDEXER}/sampler", json_body=body, read_timeout=read_timeout)


def parse_sampler(resp: Response, req: Request) -> InputSample:
    """``SamplerResponse``: ``numRowsRead`` (every row read, parseable or not), ``numRowsIndexed``, ``data``
    (unparseable rows carry ``unparseable: true`` and ``error``). A missing or empty local folder is 200 with
    ``numRowsRead: 0`` (RECORDED.md §15); a spec or input source it cannot read is 400 ``{"error": ...}``."""
    raise_for_status(resp, req)
    data = resp.json()
    read = as_int(data.get("numRowsRead")) if isinstance(data, dict) else None
    if read is None:
        raise DruidProtocolError(f"sampler answered without numRowsRead: {resp.text[:200]!r}", url=resp.url)
    rows = data.get("data")
    bad = [r for r in rows if isinstance(r, dict) and r.get("unparseable")] if isinstance(rows, list) else []
    parsed = [r.get("parsed") for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    times = [as_int(row.get("__time")) for row in parsed if isinstance(row, dict)]
    return InputSample(
        rows_read=read,
        rows_indexed=as_int(data.get("numRowsIndexed")) or 0,
        unparseable=len(bad),
        first_error=as_text(bad[0].get("error")) if bad else None,
        seconds=resp.elapsed,
        times=tuple(t for t in times if t is not None),
    )


def sql(query: str, parameters: list[dict[str, Any]] | None = None) -> Request:
    body: dict[str, Any] = {"query": query, "resultFormat": "object"}
    if parameters:
        body["parameters"] = parameters
    return Request("POST", "broker", "/druid/v2/sql", json_body=body)


def parse_sql(resp: Response, req: Request) -> list[dict[str, Any]]:
    raise_for_status(resp, req)
    data = resp.json()
    return data if isinstance(data, list) else []
