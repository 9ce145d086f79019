"""Fake Overlord route handlers: ``/druid/indexer/v1/*`` (druid-contract §submit-druid-contract §workers)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from aiohttp import web

from druid_ingest.testing import fake_reports as reports
from druid_ingest.testing import fake_versions as versions
from druid_ingest.testing.fake_http import (
    Ctx,
    druid_error,
    empty,
    jetty_page,
    json_response,
    legacy_error,
    require_write,
    text_response,
)
from druid_ingest.testing.fake_locks import active_locks
from druid_ingest.testing.fake_state import ClusterState
from druid_ingest.testing.fake_tasks import (
    FakeTask,
    InvalidInputError,
    SpecError,
    jackson_syntax_error,
    parse_task,
    validate_id,
)
from druid_ingest.testing.fake_time import created_within, parse_interval

__all__ = [
    "ROUTES",
    "V1",
    "get_health",
    "get_is_leader",
    "get_leader",
    "get_log",
    "get_payload",
    "get_reports",
    "get_segments",
    "get_status",
    "get_tasks",
    "get_total_capacity",
    "get_version",
    "get_workers",
    "post_active_locks",
    "post_segment_update",
    "post_shutdown",
    "post_shutdown_all",
    "post_task",
    "post_task_status",
    "segment_update",
]

V1 = "/druid/indexer/v1"
_API_TASK_STATES = ["pending", "waiting", "running", "complete"]


def _is_json(ctx: Ctx) -> bool:
    """False only for an explicit non-JSON Content-Type (-> 415). A request without one reaches the method
    (so an empty bulk-status POST gets druid-contract §bulk-status's 400); how Jersey treats a missing header was not
    recorded."""
    ctype = next((v for k, v in ctx.rec.headers.items() if k.lower() == "content-type"), "")
    return not ctype or ctype.split(";")[0].strip().lower() == "application/json"


def _body_json(ctx: Ctx) -> tuple[bool, Any]:
    try:
        return True, json.loads(ctx.rec.body.decode("utf-8") or "null")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False, None


def _task_or_404(ctx: Ctx) -> tuple[FakeTask | None, web.Response | None]:
    # druid-contract §status: TaskResourceFilter runs first: unknown id -> 404 text/plain.
    task_id = ctx.params["id"]
    with ctx.state.lock:
        ctx.state.now()
        task = ctx.state.tasks.get(task_id)
    if task is None:
        return None, text_response(f"Cannot find any task with id: [{task_id}]", 404)
    return task, None


async def post_task(ctx: Ctx) -> web.Response:
    state, cfg = ctx.state, ctx.fake
    if not _is_json(ctx):
        return empty(415)  # druid-contract §submit: 415 unless Content-Type is application/json
    ok, payload = _body_json(ctx)
    if not ok:
        # Druid 33 (RECORDED.md §1): a JSON syntax error is 400 {"error": "<Jackson message>"}, not a 500 page.
        return legacy_error(400, jackson_syntax_error(ctx.rec.body.decode("utf-8", "replace")))
    try:
        parsed = parse_task(payload)  # druid-contract §submit step 2: Jackson deserialization -> 400 {"error": ...}
    except SpecError as exc:
        return legacy_error(400, str(exc))
    require_write(ctx)  # druid-contract §submit step 4: DATASOURCE WRITE after deserialization -> 403
    task_id = parsed.id if parsed.id is not None else state.new_task_id(parsed, state.now())
    try:
        validate_id("Task ID", task_id)  # druid-contract §submit step 6(1): IdUtils.validateId -> 400 invalidInput
    except InvalidInputError as exc:
        return druid_error(400, "invalidInput", "INVALID_INPUT", str(exc))
    except SpecError as exc:
        return legacy_error(400, str(exc))
    with state.lock:
        exists = task_id in state.tasks
    if exists:
        if cfg.duplicate_shape == "legacy":
            # druid-contract §submit Druid <= 29: EntryExistsException -> 400 {"error": "Task [<id>] already exists."}
            return legacy_error(400, f"Task [{task_id}] already exists.")
        # druid-contract §submit Druid >= 30: EntryAlreadyExists -> 400 druidException entryAlreadyExists, no space
        # in "Task[".
        return druid_error(400, "entryAlreadyExists", "INVALID_INPUT", f"Task[{task_id}] already exists")
    if cfg.insert_delay:
        # widens the check-then-insert window (druid-contract §submit race variant)
        await asyncio.sleep(cfg.insert_delay)
    with state.lock:
        if task_id in state.tasks:
            if cfg.duplicate_shape == "legacy":
                return legacy_error(400, f"Task [{task_id}] already exists.")
            # druid-contract §submit race: the SQL insert fails -> wrapInDruidException -> 400 invalidInput, "Task ["
            # with a space.
            return druid_error(400, "invalidInput", "INVALID_INPUT", f"Task [{task_id}] already exists")
        if len(task_id) > 255:
            # druid-contract §submit Task ID rules: druid_tasks.id is VARCHAR(255) -> insert fails -> 500 (persona
            # unverified).
            return druid_error(500, "general", "RUNTIME_FAILURE",
                               f"Encountered metadata exception for task [{task_id}]", persona="OPERATOR")
        state.insert_task(task_id, parsed, payload, state.clock())
    return json_response({"task": task_id})


async def get_status(ctx: Ctx) -> web.Response:
    task, err = _task_or_404(ctx)
    if err:
        return err
    with ctx.state.lock:
        return json_response(reports.status_response(task))


async def get_payload(ctx: Ctx) -> web.Response:
    task, err = _task_or_404(ctx)
    return err or json_response({"task": task.id, "payload": task.spec})


async def get_reports(ctx: Ctx) -> web.Response:
    task, err = _task_or_404(ctx)
    if err:
        return err
    with ctx.state.lock:
        body = reports.report(task, ctx.state.now())
    if body is None:
        # druid-contract §reports: 404, plain message despite the JSON content type.
        return text_response("No task reports were found for this task. The task may not exist, or it may not "
                             "have completed yet.", 404, content_type="application/json")
    return json_response(body)


async def get_log(ctx: Ctx) -> web.Response:
    _task, err = _task_or_404(ctx)
    # Druid 33 with an Indexer (RECORDED.md §3): task logs are never pushed, so never found, even when finished.
    return err or text_response("No log was found for this task. The task may not exist, or it may not have "
                                "begun running yet.", 404)


async def get_segments(ctx: Ctx) -> web.Response:
    _task, err = _task_or_404(ctx)
    # druid-contract §reports: deprecated endpoint, always 404 for known tasks.
    return err or legacy_error(404, "Segment IDs committed by a task action are not persisted anymore. Use the "
                               "metric 'segment/added/bytes' to identify the segments created by a task.")


async def post_shutdown(ctx: Ctx) -> web.Response:
    task, err = _task_or_404(ctx)
    if err:
        return err
    require_write(ctx)  # druid-contract §auth-tls: DATASOURCE WRITE
    ctx.state.shutdown(task, ctx.state.clock())  # druid-contract §shutdown: always 200 for known ids
    return json_response({"task": task.id})


async def post_shutdown_all(ctx: Ctx) -> web.Response:
    require_write(ctx)
    ds = ctx.params["ds"]
    with ctx.state.lock:
        now = ctx.state.now()
        active = [t for t in ctx.state.tasks.values() if t.datasource == ds and t.is_active]
        for task in active:
            ctx.state.shutdown(task, now)
    # druid-contract §shutdown: 200 {"dataSource": ds}, or 404 empty if nothing active.
    return json_response({"dataSource": ds}) if active else empty(404)


async def post_task_status(ctx: Ctx) -> web.Response:
    require_write(ctx)  # druid-contract §bulk-status: StateResourceFilter -> STATE WRITE
    if not _is_json(ctx):
        return empty(415)
    ok, ids = _body_json(ctx)
    if not ok:
        return legacy_error(400, jackson_syntax_error(ctx.rec.body.decode("utf-8", "replace")))  # as submit
    if not ids:
        # druid-contract §bulk-status; Druid 33 (RECORDED.md §4): plain text under Content-Type: application/json.
        return text_response("No Task IDs provided.", 400, content_type="application/json")
    if not isinstance(ids, list):
        return legacy_error(400, "Cannot deserialize value of type `java.util.ArrayList<java.lang.String>` "
                            "from Object value")
    with ctx.state.lock:
        ctx.state.now()
        # druid-contract §bulk-status: map id -> TaskStatus; unknown ids omitted.
        body = {i: reports.task_status(ctx.state.tasks[i]) for i in ids if i in ctx.state.tasks}
    return json_response(body)


async def post_active_locks(ctx: Ctx) -> web.Response:
    """``POST /activeLocks`` (Druid 33, RECORDED.md §13): STATE WRITE; a list of LockFilterPolicy."""
    require_write(ctx)
    if not _is_json(ctx):
        return empty(415)
    ok, policies = _body_json(ctx)
    if not ok:
        return legacy_error(400, jackson_syntax_error(ctx.rec.body.decode("utf-8", "replace")))
    if not policies:
        return text_response("No filter provided", 400, content_type="application/json")
    if not isinstance(policies, list) or not all(isinstance(p, dict) for p in policies):
        return legacy_error(400, "Cannot deserialize value of type `java.util.ArrayList<org.apache.druid.indexing."
                            "overlord.LockFilterPolicy>` from Object value")
    out: dict[str, list[dict[str, Any]]] = {}
    with ctx.state.lock:
        ctx.state.now()
        for policy in policies:
            ds = str(policy.get("datasource"))
            try:
                intervals = [parse_interval(str(i)) for i in policy.get("intervals") or []]
            except ValueError as exc:
                return legacy_error(400, str(exc))
            minimum = int(policy.get("priority") or 0)
            locks = [lock for task in active_locks(ctx.state.index, ds, intervals or None)
                     for lock in reports.lock_entries(task) if lock["priority"] >= minimum]
            if locks:
                out[ds] = locks
    return json_response({"datasourceToLocks": out})


def _list(ctx: Ctx, state_filter: str | None) -> web.Response:
    q = ctx.query
    if state_filter is not None and state_filter.lower() not in _API_TASK_STATES:
        # Druid 33 (RECORDED.md §11): Java list formatting, no quotes.
        return text_response(f"Invalid task state[{state_filter}]. Must be one of [{', '.join(_API_TASK_STATES)}].",
                             400)
    wanted = state_filter.lower() if state_filter else None
    try:
        within = created_within(q.get("createdTimeInterval"))
    except ValueError as exc:  # TaskQueryTool.getTaskStatusPlusList: Intervals.of throws, a 500
        return text_response(f"Invalid interval[{q['createdTimeInterval']}]: [{exc}]", 500)
    with ctx.state.lock:
        since = ctx.state.now() - within
        tasks = [t for t in ctx.state.tasks.values() if not q.get("datasource") or t.datasource == q["datasource"]]
        active = sorted((t for t in tasks if t.is_active), key=lambda t: t.seq)
        if wanted and wanted != "complete":
            active = [t for t in active if t.runner_state.lower() == wanted]
        elif wanted == "complete":
            active = []
        complete = [] if wanted and wanted != "complete" else sorted(
            (t for t in tasks if not t.is_active and t.created_at >= since), key=lambda t: (t.created_at, t.seq),
            reverse=True)
        entries = [reports.list_entry(t) for t in active]
        done = [entry for t in complete for entry in (*reports.subtask_entries(t), reports.list_entry(t))]
        if q.get("max"):
            done = done[: int(q["max"])]  # `max` bounds completed tasks, subtasks included
        # TaskQueryTool.getTaskStatusPlusStream: the metadata store's newest `max` completed tasks first, the `type`
        # filter after, so a parallel ingestion's subtasks crowd its older runs out of `type=index_parallel&max=N`
        if q.get("type"):
            entries, done = ([e for e in group if e["type"] == q["type"]] for group in (entries, done))
        return json_response([*entries, *done])


async def get_tasks(ctx: Ctx) -> web.Response:
    return _list(ctx, ctx.query.get("state"))


def _fixed_list(state: str):
    async def handler(ctx: Ctx) -> web.Response:
        return _list(ctx, state)

    return handler


async def get_workers(ctx: Ctx) -> web.Response:
    st = ctx.state
    with st.lock:
        st.now()
        running = [t for t in st.tasks.values() if t.is_active and t.runner_state == "RUNNING"]
        return json_response(reports.workers(running, st.capacity, st.used_slots(), st.last_completed_time))


async def get_total_capacity(ctx: Ctx) -> web.Response:
    st = ctx.state
    with st.lock:
        st.now()
        return json_response({"currentClusterCapacity": st.capacity, "maximumCapacityWithAutoScale": st.capacity,
                              "usedClusterCapacity": st.used_slots()})


async def get_is_leader(ctx: Ctx) -> web.Response:
    return json_response({"leader": True})  # druid-contract §submit: leader -> 200 {"leader": true}


#: the segment updates the fake models (``OverlordDataSourcesResource``: one ``{"interval"}`` body each): the path's
#: action -> the state's change, the count of segments it changed; the Coordinator's copies route the same actions
SEGMENT_UPDATES: dict[str, Callable[[ClusterState, str, tuple[int, int]], int]] = {
    "markUnused": ClusterState.mark_unused,  # markSegmentsWithinIntervalAsUnused: used segments inside it
    # markNonOvershadowedSegmentsAsUsed (server/.../metadata/SqlSegmentsMetadataQuery.java): unused ones inside it
    "markUsed": ClusterState.mark_used,
}
#: the route's pattern for the actions of :data:`SEGMENT_UPDATES`
SEGMENT_UPDATE_ACTION = rf"(?P<action>{'|'.join(SEGMENT_UPDATES)})"


async def post_segment_update(ctx: Ctx) -> web.Response:
    """``OverlordDataSourcesResource``'s segment updates: a 404 page before Druid 32, which has no such resource
    (``fake_versions.overlord_serves_segment_writes``); else :func:`segment_update`."""
    if not versions.overlord_serves_segment_writes(ctx.fake.version):
        return jetty_page(404, ctx.rec.path)
    return segment_update(ctx, legacy=False)


def segment_update(ctx: Ctx, legacy: bool) -> web.Response:
    """A segment update (``ctx.params["action"]``, see :data:`SEGMENT_UPDATES`) of ``{"interval"}``. Druid 33
    answers ``{"numChangedSegments": n, "segmentStateChanged": n > 0}`` (observed, also for an unknown datasource);
    the Coordinator before Druid 32 (``legacy``) only ``{"numChangedSegments": n}`` (``DataSourcesResource``).
    DATASOURCE WRITE."""
    require_write(ctx)
    ok, payload = _body_json(ctx)
    interval = payload.get("interval") if ok and isinstance(payload, dict) else None
    if not isinstance(interval, str):
        # SegmentsToUpdateFilter.INVALID_PAYLOAD_ERROR_MESSAGE; segment ids are not modelled here
        return text_response("Invalid request payload. Specify either 'interval' or 'segmentIds', but not both. "
                             "Optionally, include 'versions' only when 'interval' is provided.", 400,
                             content_type="application/json")
    try:
        changed = SEGMENT_UPDATES[ctx.params["action"]](ctx.state, ctx.params["ds"], parse_interval(interval))
    except ValueError as exc:
        return legacy_error(400, str(exc))
    if legacy:
        return json_response({"numChangedSegments": changed})
    return json_response({"numChangedSegments": changed, "segmentStateChanged": changed > 0})


async def get_version(ctx: Ctx) -> web.Response:
    """``StatusResource``: ``{"version", "modules", "memory"}``; the version is the fake's profile."""
    return json_response({"version": ctx.fake.version, "modules": [],
                          "memory": {"maxMemory": 0, "totalMemory": 0, "freeMemory": 0, "usedMemory": 0,
                                     "directMemory": 0}})


async def get_leader(ctx: Ctx) -> web.Response:
    return text_response(ctx.fake.url, 200, content_type="application/json")  # RECORDED.md §11: JSON type


async def get_health(ctx: Ctx) -> web.Response:
    return json_response(True)


_ID = r"(?P<id>[^/]+)"
ROUTES = [
    ("POST", rf"{V1}/task", post_task),
    ("GET", rf"{V1}/task/{_ID}/status", get_status),
    ("GET", rf"{V1}/task/{_ID}/reports", get_reports),
    ("GET", rf"{V1}/task/{_ID}/log", get_log),
    ("GET", rf"{V1}/task/{_ID}/segments", get_segments),
    ("POST", rf"{V1}/task/{_ID}/shutdown", post_shutdown),
    ("GET", rf"{V1}/task/{_ID}", get_payload),
    ("POST", rf"{V1}/taskStatus", post_task_status),
    ("POST", rf"{V1}/activeLocks", post_active_locks),
    ("POST", rf"{V1}/datasources/(?P<ds>[^/]+)/shutdownAllTasks", post_shutdown_all),
    ("POST", rf"{V1}/datasources/(?P<ds>[^/]+)/{SEGMENT_UPDATE_ACTION}", post_segment_update),
    ("GET", rf"{V1}/tasks", get_tasks),
    ("GET", rf"{V1}/runningTasks", _fixed_list("running")),
    ("GET", rf"{V1}/pendingTasks", _fixed_list("pending")),
    ("GET", rf"{V1}/waitingTasks", _fixed_list("waiting")),
    ("GET", rf"{V1}/completeTasks", _fixed_list("complete")),
    ("GET", rf"{V1}/workers", get_workers),
    ("GET", rf"{V1}/totalWorkerCapacity", get_total_capacity),
    ("GET", rf"{V1}/isLeader", get_is_leader),
    ("GET", rf"{V1}/leader", get_leader),
    ("GET", r"/status/health", get_health),
    ("GET", r"/status", get_version),
]
