"""The Overlord's lock reads (``POST /activeLocks``): one wait's version ceiling, a herd's locks in one request, and
who holds the lock a queued task waits for. Pure builders and their parser, as in ``endpoints``."""

from __future__ import annotations

from typing import Any

from druid_ingest.api._models import TaskLock
from druid_ingest.errors import DruidProtocolError
from druid_ingest.wire import Request, Response, raise_for_status

__all__ = ["INDEXER", "active_locks", "active_locks_of", "parse_active_locks"]

#: the Overlord's API root (task, lock and worker reads)
INDEXER = "/druid/indexer/v1"


def active_locks_of(datasources: list[str]) -> Request:
    """``POST /activeLocks`` with one filter per datasource (druid-contract §first-looks): the locks of many waits'
    datasources in one request."""
    policies = [{"datasource": ds, "priority": 0} for ds in datasources]
    return Request("POST", "overlord", f"{INDEXER}/activeLocks", json_body=policies)


def active_locks(datasource: str, intervals: list[str] | None = None) -> Request:
    """Locks held now on ``datasource`` (all its intervals unless given): ``OverlordResource.getActiveLocks``,
    which needs STATE WRITE. Priority 0 keeps every lock (the filter drops locks below it)."""
    policy: dict[str, Any] = {"datasource": datasource, "priority": 0}
    if intervals:
        policy["intervals"] = list(intervals)
    return Request("POST", "overlord", f"{INDEXER}/activeLocks", json_body=[policy])


def parse_active_locks(resp: Response, req: Request) -> list[TaskLock]:
    """``{"datasourceToLocks": {ds: [TaskLock]}}``; a datasource without locks is absent."""
    raise_for_status(resp, req)
    data = resp.json()
    per_ds = data.get("datasourceToLocks") if isinstance(data, dict) else None
    if not isinstance(per_ds, dict):
        raise DruidProtocolError(f"activeLocks answered without datasourceToLocks: {resp.text[:200]!r}", url=resp.url)
    found = []
    for locks in per_ds.values():
        for lock in locks if isinstance(locks, list) else []:
            if isinstance(lock, dict) and lock.get("groupId") and lock.get("version") and lock.get("interval"):
                found.append(
                    TaskLock(
                        group_id=str(lock["groupId"]),
                        datasource=str(lock.get("dataSource") or ""),
                        interval=str(lock["interval"]),
                        version=str(lock["version"]),
                        lock_type=lock.get("type"),
                        revoked=bool(lock.get("revoked", False)),
                        priority=lock["priority"] if isinstance(lock.get("priority"), int) else None,
                    )
                )
    return found
