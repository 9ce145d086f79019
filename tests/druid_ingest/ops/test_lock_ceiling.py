"""``operations.lock_ceiling``: which lock version bounds a task's own segments (revoked locks never count).

The fake Druid's ``POST /activeLocks`` never reports a revoked lock, so these tests answer that one endpoint with
the JSON Druid 33 sends (``TaskLock`` objects under ``datasourceToLocks``) through a fault, over a real socket.
Both clients drive the same generator (``make_client``).
"""

from __future__ import annotations

import json
from typing import Any

from druid_ingest.api._models import TaskStatus
from druid_ingest.ops.operations import lock_ceiling
from druid_ingest.testing import FakeDruid, Fault

GROUP = "index_parallel_lockds_abc"
DS = "lock_ceiling_ds"
STATUS = TaskStatus(task_id=GROUP, state="RUNNING", runner_state="RUNNING", datasource=DS, group_id=GROUP)


def _lock(version: str, *, revoked: bool, group: str = GROUP) -> dict[str, Any]:
    return {"granularity": "timeChunk", "type": "EXCLUSIVE", "groupId": group, "dataSource": DS,
            "interval": "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z", "version": version, "priority": 50,
            "revoked": revoked}


def _answer_locks(fake: FakeDruid, locks: list[dict[str, Any]]) -> None:
    fake.add_fault(Fault(method="POST", path=r"/activeLocks$", kind="status", status=200,
                         body=json.dumps({"datasourceToLocks": {DS: locks}}), content_type="application/json",
                         times=None))


def _task_lists(fake: FakeDruid) -> list[Any]:
    return [r for r in fake.requests if r.method == "GET" and r.path.startswith("/druid/indexer/v1/tasks")]


def test_the_only_lock_of_the_group_revoked_gives_no_ceiling(fake_druid: FakeDruid, make_client) -> None:
    _answer_locks(fake_druid, [_lock("2026-12-01T10:00:00.000Z", revoked=True)])
    assert make_client()._run(lock_ceiling(STATUS)) is None
    assert _task_lists(fake_druid) == []  # an answered activeLocks is the truth: no queueInsertionTime guess


def test_a_revoked_lock_with_a_higher_version_loses_to_the_live_one(fake_druid: FakeDruid, make_client) -> None:
    _answer_locks(fake_druid, [
        _lock("2026-12-01T10:00:00.000Z", revoked=False),
        _lock("2026-12-01T11:00:00.000Z", revoked=True),
        _lock("2026-12-01T12:00:00.000Z", revoked=False, group="someone_else"),
    ])
    assert make_client()._run(lock_ceiling(STATUS)) == "2026-12-01T10:00:00.000Z"


def test_the_newest_live_lock_of_the_group_is_the_ceiling(fake_druid: FakeDruid, make_client) -> None:
    _answer_locks(fake_druid, [
        _lock("2026-12-01T09:00:00.000Z", revoked=False),
        _lock("2026-12-01T10:30:00.000Z", revoked=False),
        _lock("2026-12-01T10:00:00.000Z", revoked=False),
    ])
    assert make_client()._run(lock_ceiling(STATUS)) == "2026-12-01T10:30:00.000Z"
