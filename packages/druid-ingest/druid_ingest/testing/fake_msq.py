"""Fake MSQ: ``POST /druid/v2/sql/task`` and the ``multiStageQuery`` report of a ``query_controller`` task.

Parses only what it must (its own small reading, independent of the core's checks): ``REPLACE``/``INSERT INTO
<table>``, the ``OVERWRITE WHERE`` bounds (the chunks replaced and locked), ``PARTITIONED BY``. The controller
is an ordinary fake task of type ``query_controller`` (``query-<sqlQueryId>``), so status, locks, shutdown,
publishing and handoff behave as for native tasks. Shapes as recorded on Druid 33 with the hand-built
extension (dev/druid/RECORDED.md §MSQ).
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import replace
from typing import Any

from aiohttp import web

from druid_ingest.testing.fake_http import Ctx, json_response
from druid_ingest.testing.fake_tasks import FakeTask, ParsedTask
from druid_ingest.testing.fake_time import parse_interval

__all__ = ["ROUTES", "msq_report"]

_HEAD = re.compile(r"^\s*(REPLACE|INSERT)\s+INTO\s+(\"[^\"]+\"|\w+)", re.I)
_WHERE = re.compile(r"OVERWRITE\s+WHERE\s+(.*?)\s+SELECT\b", re.I | re.S)
_TS = re.compile(r"TIMESTAMP\s*'([^']+)'", re.I)
_PARTITIONED = re.compile(r"PARTITIONED\s+BY\s+(\w+)", re.I)
_GRANULARITY = {"DAY": "DAY", "HOUR": "HOUR", "MONTH": "MONTH", "YEAR": "YEAR", "ALL": "ALL"}


def _error(status: int, task_id: str | None, code: str, category: str, message: str,
           persona: str = "USER", context: dict[str, Any] | None = None) -> web.Response:
    """SqlTaskResource.buildNonOkResponse: SqlTaskStatus {taskId (the sqlQueryId), state FAILED, error}."""
    return json_response({"taskId": task_id, "state": "FAILED", "error": {
        "error": "druidException", "errorCode": code, "persona": persona, "category": category,
        "errorMessage": message, "context": context if context is not None else {}}}, status=status)


def _iso(ts: str) -> str:
    return ts.strip().replace(" ", "T") + ("" if ts.strip().endswith("Z") else "Z")


def _parse(sql: str, query_id: str) -> ParsedTask | str:
    head = _HEAD.match(re.sub(r"--[^\n]*", " ", sql))
    if head is None:
        return "fake MSQ only runs REPLACE/INSERT statements"
    table = head.group(2).strip('"')
    part = _PARTITIONED.search(sql)
    if part is None:
        return (f"Operation [{head.group(1).upper()}] requires a PARTITIONED BY to be explicitly defined, but none "
                "was found.")
    intervals: list[tuple[int, int]] = []
    verb = head.group(1).upper()
    if verb == "REPLACE":
        where = _WHERE.search(sql)
        if where is not None:
            stamps = _TS.findall(where.group(1))
            if len(stamps) != 2:
                return f"fake MSQ needs two TIMESTAMP bounds in OVERWRITE WHERE, got {where.group(1)!r}"
            intervals = [parse_interval(f"{_iso(stamps[0])}/{_iso(stamps[1])}")]
    return ParsedTask(type="query_controller", id=query_id, group_id=None, datasource=table, context={},
                      segment_granularity=_GRANULARITY.get(part.group(1).upper(), "DAY"), intervals=intervals,
                      append=verb == "INSERT", drop_existing=verb == "REPLACE", max_subtasks=1, parallel=True)


async def post_sql_task(ctx: Ctx) -> web.Response:
    try:
        body = json.loads(ctx.rec.body or b"{}")
    except ValueError:
        return _error(400, None, "invalidInput", "INVALID_INPUT", "Malformed SQL query body")
    sql = body.get("query") if isinstance(body, dict) else None
    context = body.get("context") or {} if isinstance(body, dict) else {}
    query_id = str(context.get("sqlQueryId") or uuid.uuid4())
    task_id = f"query-{query_id}"
    if not isinstance(sql, str):
        return _error(400, query_id, "invalidInput", "INVALID_INPUT", "query must be a string")
    parsed = _parse(sql, task_id)
    if isinstance(parsed, str):
        return _error(400, query_id, "invalidInput", "INVALID_INPUT", parsed, context={"sourceType": "sql"})
    parsed.context = dict(context)
    state = ctx.state
    with state.lock:
        if task_id in state.tasks:
            # Druid 33 + MSQ (RECORDED.md §MSQ): the Overlord's 400 comes back through OverlordClient as a 500
            # druidException with the Overlord's answer inside errorMessage.
            # Druid 33 + MSQ (RECORDED.md §MSQ): the Overlord's duplicate-id 400 comes back through OverlordClient
            # as a 500 druidException "general" with the Overlord's answer inside errorMessage.
            overlord = json.dumps({"error": "druidException", "errorCode": "entryAlreadyExists", "persona": "USER",
                                   "category": "INVALID_INPUT", "errorMessage": f"Task[{task_id}] already exists",
                                   "context": {}}, separators=(",", ":"))
            return _error(500, query_id, "general", "UNCATEGORIZED",
                          "org.apache.druid.rpc.HttpResponseException: Server error [400 Bad Request]; "
                          f"body: {overlord}",
                          persona="DEVELOPER")
        payload = {"type": "query_controller", "id": task_id, "dataSource": parsed.datasource,
                   "sqlQuery": sql, "sqlQueryContext": context, "context": dict(context)}
        task = state.insert_task(task_id, parsed, payload, state.clock())
        if task.plan.rows_per_bucket <= 0 and context.get("failOnEmptyInsert") in (True, "true"):
            # Druid 33 + MSQ (RECORDED.md §MSQ): no rows with failOnEmptyInsert -> FAILED, nothing published
            task.plan = replace(task.plan, outcome="FAILED", error_msg=(
                f"InsertCannotBeEmpty: No rows to insert for dataSource[{parsed.datasource}]. Set failOnEmptyInsert "
                ": false in the query context to allow empty inserts."))
    return json_response({"taskId": task_id, "state": "RUNNING"}, status=202)


def msq_report(task: FakeTask, now: float) -> dict[str, Any] | None:
    """The controller's report as Druid 33 writes it (RECORDED.md §MSQ): status (errorReport when FAILED, the
    live RUNNING one while the runner still has it), stage 0 reading the input (an inline source counts only
    files), stage 1 generating segments; plus the taskContext section."""
    if task.start_at is None:
        return None
    rows = sum(s.num_rows for s in task._segments) if task.state == "SUCCESS" else 0
    done = not task.is_active
    status: dict[str, Any] = {
        "status": task.state if done and task.runner_state == "NONE" else "RUNNING",
        "startTime": task.created_time,
        "durationMs": int(((task.finished_at or now) - task.start_at) * 1000),
        "workers": {"0": [{"workerId": f"{task.id}-worker0_0", "state": task.state if done else "RUNNING",
                           "durationMs": int(task.duration * 1000) if done else -1, "pendingMs": 0}]},
        "pendingTasks": 0,
        "runningTasks": 1,
    }
    if task.state == "FAILED":
        # Druid 33 (RECORDED.md §14): a shut-down controller's final report says Canceled
        shut = task.error_msg == "Shutdown request from user"
        code, _, message = ("Canceled: Query canceled by user or by task shutdown." if shut
                            else task.error_msg or "UnknownError: ").partition(": ")
        status["errorReport"] = {"taskId": task.id, "host": "127.0.0.1:8091",
                                 "error": {"errorCode": code, "errorMessage": message or task.error_msg},
                                 "exceptionStackTrace": f"org.apache.druid.msq.indexing.error.MSQException: "
                                                        f"{code}: {message}\n\tat (FakeDruid)"}
    elif task.state == "SUCCESS":
        status["segmentReport"] = {"shardSpec": "NumberedShardSpec", "details": "CLUSTERED BY clause is empty."}
    counters = {
        "0": {"0": {"input0": {"type": "channel", "totalFiles": [1]},
                    "output": {"type": "channel", "rows": [rows], "bytes": [rows * 76], "frames": [1]},
                    "shuffle": {"type": "channel", "rows": [rows], "bytes": [rows * 72], "frames": [1]}}},
        "1": {"0": {"input0": {"type": "channel", "rows": [rows], "bytes": [rows * 72], "frames": [1]},
                    "segmentGenerationProgress": {"type": "segmentGenerationProgress", "rowsProcessed": rows,
                                                  "rowsPersisted": rows, "rowsMerged": rows, "rowsPushed": rows}}},
    }
    stages = [{"stageNumber": n, "phase": "FINISHED" if task.state == "SUCCESS" else "FAILED", "workerCount": 1,
               "partitionCount": 1, "output": "localStorage"} for n in (0, 1)]
    payload = {"status": status, "stages": stages, "counters": counters}
    return {"multiStageQuery": {"type": "multiStageQuery", "taskId": task.id, "payload": payload},
            "taskContext": {"type": "taskContext", "taskId": task.id, "payload": task.spec.get("context", {})}}


ROUTES = [
    ("POST", r"/druid/v2/sql/task/?", post_sql_task),
]
