"""Auto-compaction's switches: the Coordinator's per-datasource compaction config and the Overlord's compaction
supervisors. Pure builders and their parsers, as in ``endpoints``; the pause/resume operation is
``ops/auto_compaction.py``.

The Coordinator's (``server/.../server/http/CoordinatorCompactionConfigsResource.java``, measured on Druid 33.0.0):
``GET /druid/coordinator/v1/config/compaction/{ds}`` answers the config as Druid stores it (``type: inline`` and
every field, nulls included) or 404 ``notFound`` "Datasource compaction config does not exist"; ``DELETE`` it
answers ``{"success": true}``, or that 404 when there is none; ``POST /druid/coordinator/v1/config/compaction`` with
one datasource's config creates or replaces it (``{"success": true}``). Each change is written to Druid's audit log
with the request's ``X-Druid-Author``/``X-Druid-Comment`` (``AuthorizationUtils.buildAuditInfo``), and
``GET .../{ds}/history`` lists, oldest first, every change of the cluster's compaction config that touched the
datasource: ``{"globalConfig", "compactionConfig" (null once deleted), "auditInfo": {"author", "comment", ...},
"auditTime"}`` (``DataSourceCompactionConfigHistory``; without ``interval`` Druid reads the audit log's default
window, one week).

The Overlord's (``indexing-service/.../overlord/http/OverlordCompactionResource.java``): ``GET
/druid/indexer/v1/compaction/isSupervisorEnabled`` is ``true`` when auto-compaction runs as supervisors (Druid 33:
the cluster compaction config's ``useSupervisors``; ``false`` on the dev cluster); then each datasource's is the
supervisor ``autocompact__<ds>`` (``indexing/compact/CompactionSupervisorSpec.java`` ``ID_PREFIX``), read with ``GET
/druid/indexer/v1/supervisor/{id}`` (``{"type": "autocompact", "spec", "suspended"}``; 404 "Cannot find any
supervisor with id") and switched with ``POST .../{id}/suspend`` / ``/resume`` (``SupervisorResource``
``specSuspendOrResume``: 200 with the new spec, 400 ``[id] is already suspended|running``). An unknown id is
answered by ``SupervisorResourceFilter`` first: 404 text "Cannot find any supervisor with id: [id]" on Druid 33
(measured), 400 with that text in older copies of the filter; both read as "no such supervisor".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from druid_ingest.api._lock_endpoints import INDEXER
from druid_ingest.errors import DruidProtocolError
from druid_ingest.wire import Request, Response, raise_for_status, seg

__all__ = [
    "AUDIT_AUTHOR",
    "COMPACTION_CONFIG",
    "SUPERVISOR_PREFIX",
    "ConfigChange",
    "compaction_config",
    "compaction_config_history",
    "compaction_supervisor",
    "compaction_supervisors_enabled",
    "delete_compaction_config",
    "parse_compaction_config",
    "parse_compaction_config_history",
    "parse_compaction_supervisor",
    "parse_compaction_supervisors_enabled",
    "parse_config_change",
    "parse_supervisor_switch",
    "post_compaction_config",
    "supervisor_id",
    "switch_supervisor",
]

COMPACTION_CONFIG = "/druid/coordinator/v1/config/compaction"
#: ``CompactionSupervisorSpec.ID_PREFIX``
SUPERVISOR_PREFIX = "autocompact__"
#: who the audit log says changed the config (``X-Druid-Author``)
AUDIT_AUTHOR = "druid-ingest"


def _audit(comment: str) -> tuple[tuple[str, str], ...]:
    return (("X-Druid-Author", AUDIT_AUTHOR), ("X-Druid-Comment", comment))


def compaction_config(datasource: str) -> Request:
    return Request("GET", "coordinator", f"{COMPACTION_CONFIG}/{seg(datasource, 'datasource')}")


def parse_compaction_config(resp: Response, req: Request) -> dict[str, Any] | None:
    """The datasource's config as Druid stores it; None when it has none (404)."""
    if resp.status == 404:
        return None
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, dict) or not data.get("dataSource"):
        raise DruidProtocolError(f"compaction config answered without dataSource: {resp.text[:200]!r}",
                                 url=resp.url)
    return data


def delete_compaction_config(datasource: str, comment: str) -> Request:
    """Auto-compaction of the datasource stops with its config; ``comment`` goes into Druid's audit history."""
    return Request("DELETE", "coordinator", f"{COMPACTION_CONFIG}/{seg(datasource, 'datasource')}",
                   headers=_audit(comment))


def post_compaction_config(config: dict[str, Any], comment: str) -> Request:
    return Request("POST", "coordinator", COMPACTION_CONFIG, json_body=config, headers=_audit(comment))


def parse_config_change(resp: Response, req: Request) -> bool:
    """True when Druid changed the config; False for a DELETE that found none (404)."""
    if resp.status == 404 and req.method == "DELETE":
        return False
    raise_for_status(resp, req)
    return True


def compaction_config_history(datasource: str) -> Request:
    return Request("GET", "coordinator", f"{COMPACTION_CONFIG}/{seg(datasource, 'datasource')}/history")


@dataclass(frozen=True)
class ConfigChange:
    """One entry of a datasource's compaction config history: the config after the change (None: deleted)."""

    config: dict[str, Any] | None
    author: str
    comment: str
    time: str


def parse_compaction_config_history(resp: Response, req: Request) -> list[ConfigChange]:
    """Oldest first, as Druid lists them."""
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, list):
        raise DruidProtocolError(f"compaction config history is not a list: {resp.text[:200]!r}", url=resp.url)
    changes = []
    for entry in data:
        if not isinstance(entry, dict):
            continue
        config = entry.get("compactionConfig")
        info = entry.get("auditInfo")
        audit: dict[str, Any] = info if isinstance(info, dict) else {}
        changes.append(ConfigChange(config if isinstance(config, dict) else None, str(audit.get("author") or ""),
                                    str(audit.get("comment") or ""), str(entry.get("auditTime") or "")))
    return changes


def compaction_supervisors_enabled() -> Request:
    return Request("GET", "overlord", f"{INDEXER}/compaction/isSupervisorEnabled")


def parse_compaction_supervisors_enabled(resp: Response, req: Request) -> bool | None:
    """Whether auto-compaction runs as supervisors; None when the Overlord has no such API (404: before the
    compaction supervisors, where only the Coordinator's duty compacts)."""
    if resp.status == 404:
        return None
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, bool):
        raise DruidProtocolError(f"isSupervisorEnabled answered {resp.text[:200]!r}, not a boolean", url=resp.url)
    return data


def supervisor_id(datasource: str) -> str:
    return SUPERVISOR_PREFIX + datasource


def compaction_supervisor(datasource: str) -> Request:
    return Request("GET", "overlord", f"{INDEXER}/supervisor/{seg(supervisor_id(datasource), 'supervisor id')}")


def _no_supervisor(resp: Response) -> bool:
    return resp.status == 404 or (resp.status == 400 and "Cannot find any supervisor" in resp.text)


def parse_compaction_supervisor(resp: Response, req: Request) -> bool | None:
    """Whether the datasource's compaction supervisor is suspended; None when there is none."""
    if _no_supervisor(resp):
        return None
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, dict) or not isinstance(data.get("suspended", False), bool):
        raise DruidProtocolError(f"supervisor spec answered {resp.text[:200]!r}", url=resp.url)
    return bool(data.get("suspended", False))


def switch_supervisor(datasource: str, suspend: bool) -> Request:
    action = "suspend" if suspend else "resume"
    return Request("POST", "overlord",
                   f"{INDEXER}/supervisor/{seg(supervisor_id(datasource), 'supervisor id')}/{action}")


def parse_supervisor_switch(resp: Response, req: Request) -> str:
    """``"switched"``; ``"already"`` when it already was (400 "is already ..."); ``"missing"`` when there is no such
    supervisor."""
    if _no_supervisor(resp):
        return "missing"
    if resp.status == 400 and "is already" in resp.text:
        return "already"
    raise_for_status(resp, req)
    return "switched"
