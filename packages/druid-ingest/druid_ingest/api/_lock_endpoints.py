"""The Overlord's lock reads (``POST /activeLocks``): one wait's version ceiling, a herd's locks in one request, and
who holds the lock a queued task waits for. Pure builders and their parser, as in ``endpoints``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Container
from typing import Any

from druid_ingest.api._models import TaskLock
from druid_ingest.errors import DruidProtocolError
from druid_ingest.wire import Request, Response, raise_for_status

__all__ = ["INDEXER", "active_locks", "active_locks_of", "parse_active_locks", "parse_active_locks_among"]

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
            task_lock = _lock_from(lock)
            if task_lock is not None:
                found.append(task_lock)
    return found


def _lock_from(lock: Any) -> TaskLock | None:
    if isinstance(lock, dict) and lock.get("groupId") and lock.get("version") and lock.get("interval"):
        return TaskLock(
            group_id=str(lock["groupId"]),
            datasource=sys.intern(str(lock.get("dataSource") or "")),
            interval=str(lock["interval"]),
            version=str(lock["version"]),
            lock_type=lock.get("type"),
            revoked=bool(lock.get("revoked", False)),
            priority=lock["priority"] if isinstance(lock.get("priority"), int) else None,
        )
    return None


def parse_active_locks_among(groups: Container[str]) -> Callable[[Response, Request], list[TaskLock]]:
    """A parser like :func:`parse_active_locks` that keeps only the locks of ``groups`` and reads the answer one
    lock at a time: a herd's read of every waiting datasource's locks (10,000 at a triggerer's restart) is never
    held parsed all at once, which would set the triggerer's peak memory. An answer it cannot follow is read whole,
    as :func:`parse_active_locks` reads it (and fails as it does)."""

    def parse(resp: Response, req: Request) -> list[TaskLock]:
        raise_for_status(resp, req)
        try:
            text = resp.body.decode("utf-8")
            return [lock for lock in _streamed_locks(text) if lock.group_id in groups]
        except ValueError:  # not this shape, or not UTF-8 JSON: the whole answer, as the plain parser reads it
            return [lock for lock in parse_active_locks(resp, req) if lock.group_id in groups]

    return parse


_DECODER = json.JSONDecoder()


def _streamed_locks(text: str) -> list[TaskLock]:
    """The locks of ``{"datasourceToLocks": {ds: [lock, ...], ...}, ...}``, each lock decoded on its own; a
    ValueError for anything else (no ``datasourceToLocks`` object, broken JSON, extra data)."""
    found: list[TaskLock] = []
    seen = False
    at = _expect(text, 0, "{")
    at = _skip(text, at)
    if not text.startswith("}", at):
        while True:
            key, at = _DECODER.raw_decode(text, _skip(text, at))
            at = _expect(text, at, ":")
            if key == "datasourceToLocks":
                if seen:  # twice: the plain parser keeps the last one; read it whole, as it does
                    raise ValueError("datasourceToLocks twice")
                seen = True
                at = _locks_by_datasource(text, _expect(text, at, "{"), found)
            else:
                _, at = _DECODER.raw_decode(text, _skip(text, at))
            at = _skip(text, at)
            if not text.startswith(",", at):
                break
            at += 1
        at = _expect(text, at, "}")
    else:
        at += 1
    if not seen or _skip(text, at) != len(text):
        raise ValueError("not an activeLocks answer")
    return found


def _locks_by_datasource(text: str, at: int, found: list[TaskLock]) -> int:
    """From just after the ``{`` of ``datasourceToLocks``: each datasource's array, one lock at a time; the
    position after the closing ``}``."""
    at = _skip(text, at)
    if text.startswith("}", at):
        return at + 1
    while True:
        key, at = _DECODER.raw_decode(text, _skip(text, at))
        if not isinstance(key, str):
            raise ValueError("a datasource name must be a string")
        at = _expect(text, at, ":")
        at = _skip(text, at)
        if text.startswith("[", at):
            at = _skip(text, at + 1)
            if text.startswith("]", at):
                at += 1
            else:
                while True:
                    lock, at = _DECODER.raw_decode(text, _skip(text, at))
                    task_lock = _lock_from(lock)
                    if task_lock is not None:
                        found.append(task_lock)
                    at = _skip(text, at)
                    if not text.startswith(",", at):
                        break
                    at += 1
                at = _expect(text, at, "]")
        else:
            _, at = _DECODER.raw_decode(text, at)  # not a list: no locks, as the plain parser reads it
        at = _skip(text, at)
        if not text.startswith(",", at):
            break
        at += 1
    return _expect(text, at, "}")


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _expect(text: str, at: int, char: str) -> int:
    at = _skip(text, at)
    if not text.startswith(char, at):
        raise ValueError(f"expected {char!r} at {at}")
    return at + 1
