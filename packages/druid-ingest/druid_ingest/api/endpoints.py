"""Pure builders and parsers, one pair per Druid endpoint this package touches.

A builder returns a :class:`~.http.Request`; a parser takes the :class:`~.http.Response` the transport
got for it and returns a model or raises from the error taxonomy. Sections (``druid-contract §...``) refer to
``docs/druid-contract.md``. The families with more to them live beside it and are re-exported here: the task
status reads (``_task_statuses``), the segment reads (``_segment_endpoints``), the locks, MSQ, SQL, the version and
the auto-compaction switches (``_compaction_config``).
"""

from __future__ import annotations

from typing import Any

from druid_ingest.api._compaction_config import (
    AUDIT_AUTHOR,
    ConfigChange,
    compaction_config,
    compaction_config_history,
    compaction_supervisor,
    compaction_supervisors_enabled,
    delete_compaction_config,
    parse_compaction_config,
    parse_compaction_config_history,
    parse_compaction_supervisor,
    parse_compaction_supervisors_enabled,
    parse_config_change,
    parse_supervisor_switch,
    post_compaction_config,
    supervisor_id,
    switch_supervisor,
)
from druid_ingest.api._jsonvalues import as_dict, as_int, as_str, as_text
from druid_ingest.api._lock_endpoints import (
    INDEXER,
    active_locks,
    active_locks_of,
    parse_active_locks,
    parse_active_locks_among,
)
from druid_ingest.api._models import ClusterCapacity, InputSample, WorkerInfo
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
from druid_ingest.api._sql_endpoints import parse_sql_result, sql_query
from druid_ingest.api._task_statuses import (
    ANY_CREATED_TIME,
    EPOCH,
    StatusRow,
    active_tasks,
    bulk_status,
    completed_tasks,
    parse_bulk_rows,
    parse_bulk_status,
    parse_status,
    parse_tasks,
    parse_tasks_among,
    status,
    tasks,
)
from druid_ingest.api._version_endpoint import DruidVersion, druid_version, parse_druid_version
from druid_ingest.errors import DruidProtocolError
from druid_ingest.planning import SQL_TASK_PATH
from druid_ingest.wire import Request, Response, Service, raise_for_status, seg

__all__ = [
    "ANY_CREATED_TIME",
    "AUDIT_AUTHOR",
    "COORD",
    "EPOCH",
    "INDEXER",
    "PROBE_TASK_ID",
    "SAMPLER_MAX_ROWS",
    "ConfigChange",
    "DruidVersion",
    "HealthService",
    "StatusRow",
    "active_locks",
    "active_locks_of",
    "active_tasks",
    "broker_candidates",
    "bulk_status",
    "compaction_config",
    "compaction_config_history",
    "compaction_supervisor",
    "compaction_supervisors_enabled",
    "completed_tasks",
    "data_servers",
    "delete_compaction_config",
    "druid_version",
    "handoff_complete",
    "health",
    "is_leader",
    "parse_active_locks",
    "parse_active_locks_among",
    "parse_broker_candidates",
    "parse_bulk_rows",
    "parse_bulk_status",
    "parse_compaction_config",
    "parse_compaction_config_history",
    "parse_compaction_supervisor",
    "parse_compaction_supervisors_enabled",
    "parse_config_change",
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
    "parse_sql_result",
    "parse_sql_task",
    "parse_started",
    "parse_status",
    "parse_submit",
    "parse_supervisor_switch",
    "parse_task_payload",
    "parse_tasks",
    "parse_tasks_among",
    "parse_used_segments",
    "parse_workers",
    "post_compaction_config",
    "reports",
    "sampler",
    "served_segments",
    "shutdown",
    "sql",
    "sql_query",
    "sql_task",
    "status",
    "submit",
    "supervisor_id",
    "switch_supervisor",
    "task_payload",
    "tasks",
    "used_segments",
    "workers",
]

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


#: a task id no ingestion of this package produces (its ids end with a hash), for permission probes
PROBE_TASK_ID = "__druid_ingest_permission_probe__"


def parse_permitted(resp: Response, req: Request) -> bool:
    """False for 403 (authenticated, not permitted), True for any 2xx; anything else raises as usual."""
    if resp.status == 403:
        return False
    raise_for_status(resp, req)
    return True


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
