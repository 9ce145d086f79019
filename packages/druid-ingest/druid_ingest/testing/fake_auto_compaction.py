"""The fake Druid's auto-compaction switches: the Coordinator's per-datasource compaction configs with their audit
history, and the Overlord's compaction supervisors (``autocompact__<ds>``) with suspend/resume. Each handler cites
the Druid source it models; what Druid 33.0.0 answered was measured on the dev cluster
(``tests/e2e/test_auto_compaction_real.py``). Tests drive it through ``FakeDruid.auto_compaction``.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from druid_ingest.testing.fake_http import Ctx, druid_error, json_response, legacy_error, require_write, text_response

__all__ = ["ROUTES", "AutoCompactionState"]

_CONFIG = "/druid/coordinator/v1/config/compaction"
_INDEXER = "/druid/indexer/v1"
_DS = r"(?P<ds>[^/]+)"
_ID = r"(?P<id>[^/]+)"
#: ``indexing/compact/CompactionSupervisorSpec.java`` ``ID_PREFIX``
SUPERVISOR_PREFIX = "autocompact__"
#: the cluster-level part Druid 33 puts in every history entry (``globalConfig``), as the dev cluster answered it
_GLOBAL = {"compactionTaskSlotRatio": 0.1, "maxCompactionTaskSlots": 2147483647,
           "compactionPolicy": {"type": "newestSegmentFirst", "priorityDatasource": None}, "engine": "native"}
#: the fields Druid 33 fills in a stored inline config (``InlineSchemaDataSourceCompactionConfig``, measured)
_DEFAULTS: dict[str, Any] = {
    "type": "inline", "taskPriority": 25, "inputSegmentSizeBytes": 100000000000000, "maxRowsPerSegment": None,
    "skipOffsetFromLatest": "P1D", "tuningConfig": None, "granularitySpec": None, "dimensionsSpec": None,
    "metricsSpec": None, "transformSpec": None, "projections": None, "ioConfig": None, "engine": None,
    "taskContext": None}


@dataclass
class AutoCompactionState:
    """What the fake's auto-compaction holds: configs by datasource, their audit log, the supervisors."""

    #: the cluster compaction config's ``useSupervisors`` (``isSupervisorEnabled`` answers it)
    use_supervisors: bool = False
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (datasource, config after the change or None, author, comment, time), oldest first
    audit: list[tuple[str, dict[str, Any] | None, str, str, float]] = field(default_factory=list)
    #: supervisor id -> suspended
    supervisors: dict[str, bool] = field(default_factory=dict)
    specs: dict[str, dict[str, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def put_config(self, config: dict[str, Any], author: str = "", comment: str = "") -> dict[str, Any]:
        """Create or replace a datasource's config as the Coordinator's POST does (defaults filled); the stored
        config."""
        stored = {**_DEFAULTS, **copy.deepcopy(config)}
        stored = {"type": stored.pop("type"), "dataSource": stored.pop("dataSource"), **stored}
        with self.lock:
            self.configs[stored["dataSource"]] = stored
            self.audit.append((stored["dataSource"], copy.deepcopy(stored), author, comment, time.time()))
        return stored

    def delete_config(self, datasource: str, author: str = "", comment: str = "") -> bool:
        with self.lock:
            if self.configs.pop(datasource, None) is None:
                return False
            self.audit.append((datasource, None, author, comment, time.time()))
            return True

    def add_supervisor(self, datasource: str, suspended: bool = False) -> str:
        """A compaction supervisor for ``datasource`` (as POSTing its spec with useSupervisors on makes one)."""
        sid = SUPERVISOR_PREFIX + datasource
        with self.lock:
            self.supervisors[sid] = suspended
            self.specs[sid] = {**_DEFAULTS, "dataSource": datasource}
        return sid


def _state(ctx: Ctx) -> AutoCompactionState:
    """``FakeDruid.auto_compaction`` (read by name: ``fake_http``'s settings protocol would import this module)."""
    state = getattr(ctx.fake, "auto_compaction", None)
    assert isinstance(state, AutoCompactionState)
    return state


def _audit(ctx: Ctx) -> tuple[str, str]:
    """``AuthorizationUtils.buildAuditInfo``: the author and comment headers, "" when absent."""
    return ctx.rec.headers.get("X-Druid-Author", ""), ctx.rec.headers.get("X-Druid-Comment", "")


_NOT_FOUND = "Datasource compaction config does not exist"


async def get_config(ctx: Ctx) -> web.Response:
    """``CoordinatorCompactionConfigsResource.getDatasourceCompactionConfig``: the stored config, or 404 notFound."""
    config = _state(ctx).configs.get(ctx.params["ds"])
    if config is None:
        return druid_error(404, "notFound", "NOT_FOUND", _NOT_FOUND)
    return json_response(config)


async def delete_config(ctx: Ctx) -> web.Response:
    """``CoordinatorCompactionConfigsResource.deleteCompactionConfig``: 200 ``{"success": true}``, audited; 404
    notFound when there is none (nothing audited)."""
    require_write(ctx)
    if not _state(ctx).delete_config(ctx.params["ds"], *_audit(ctx)):
        return druid_error(404, "notFound", "NOT_FOUND", _NOT_FOUND)
    return json_response({"success": True})


async def post_config(ctx: Ctx) -> web.Response:
    """``CoordinatorCompactionConfigsResource.addOrUpdateDatasourceCompactionConfig``: create or replace one
    datasource's config, audited; 400 without ``dataSource``."""
    require_write(ctx)
    body = ctx.rec.json
    if not isinstance(body, dict) or not isinstance(body.get("dataSource"), str) or not body["dataSource"]:
        return druid_error(400, "invalidInput", "INVALID_INPUT", "dataSource cannot be null or empty")
    _state(ctx).put_config(body, *_audit(ctx))
    return json_response({"success": True})


async def get_history(ctx: Ctx) -> web.Response:
    """``CoordinatorCompactionConfigsResource.getCompactionConfigHistory`` over ``DataSourceCompactionConfigHistory``:
    the datasource's changes, oldest first, each with the config after it (null once deleted); [] for none."""
    state = _state(ctx)
    with state.lock:
        entries = [e for e in state.audit if e[0] == ctx.params["ds"]]
    return json_response([
        {"globalConfig": {**_GLOBAL, "useSupervisors": state.use_supervisors}, "compactionConfig": config,
         "auditInfo": {"author": author, "identity": "allowAll", "comment": comment, "ip": "127.0.0.1"},
         "auditTime": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at)) + f".{int(at * 1000) % 1000:03d}Z"}
        for _, config, author, comment, at in entries])


async def get_supervisors_enabled(ctx: Ctx) -> web.Response:
    """``OverlordCompactionResource.isCompactionSupervisorEnabled``: a bare boolean (``false`` on the dev cluster)."""
    return web.Response(text=json.dumps(_state(ctx).use_supervisors), content_type="application/json")


async def get_supervisor(ctx: Ctx) -> web.Response:
    """``SupervisorResource.specGet``: the spec (``{"type": "autocompact", "spec", "suspended"}`` for a compaction
    supervisor, ``CompactionSupervisorSpec``); 404 text "Cannot find any supervisor with id: [id]" (measured)."""
    state, sid = _state(ctx), ctx.params["id"]
    if sid not in state.supervisors:
        return text_response(f"Cannot find any supervisor with id: [{sid}]", 404)
    return json_response({"type": "autocompact", "spec": state.specs[sid], "suspended": state.supervisors[sid]})


def _switch(suspend: bool) -> Callable[[Ctx], Awaitable[web.Response]]:
    async def handler(ctx: Ctx) -> web.Response:
        """``SupervisorResource.specSuspendOrResume``: 400 ``[id] is already suspended|running``; else 200 with
        the new spec. An unknown id never gets there: ``SupervisorResourceFilter`` answers 404 "Cannot find any
        supervisor with id: [id]" first (measured on Druid 33), not the resource's own ``[id] does not exist``."""
        require_write(ctx)
        state, sid = _state(ctx), ctx.params["id"]
        with state.lock:
            if sid not in state.supervisors:
                return text_response(f"Cannot find any supervisor with id: [{sid}]", 404)
            if state.supervisors[sid] == suspend:
                return legacy_error(400, f"[{sid}] is already {'suspended' if suspend else 'running'}")
            state.supervisors[sid] = suspend
        return json_response({"type": "autocompact", "spec": state.specs[sid], "suspended": suspend})
    return handler


ROUTES = [
    ("GET", rf"{_CONFIG}/{_DS}/history", get_history),
    ("GET", rf"{_CONFIG}/{_DS}", get_config),
    ("DELETE", rf"{_CONFIG}/{_DS}", delete_config),
    ("POST", rf"{_CONFIG}", post_config),
    ("GET", rf"{_INDEXER}/compaction/isSupervisorEnabled", get_supervisors_enabled),
    ("GET", rf"{_INDEXER}/supervisor/{_ID}", get_supervisor),
    ("POST", rf"{_INDEXER}/supervisor/{_ID}/suspend", _switch(True)),
    ("POST", rf"{_INDEXER}/supervisor/{_ID}/resume", _switch(False)),
]
