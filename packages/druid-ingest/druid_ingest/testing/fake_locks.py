"""The fake Overlord's time-chunk lock checks (Druid's ``TaskLockbox``), apart from the event loop that uses them.

Which intervals a task locks and whether another active task of its datasource already holds an overlapping one
are pure questions about the task and the :class:`~druid_ingest.testing.fake_index.TaskIndex`; ``ClusterState``
asks them when it grants locks, and the ``activeLocks`` endpoint lists their holders.
"""

from __future__ import annotations

from druid_ingest.testing.fake_index import TaskIndex
from druid_ingest.testing.fake_tasks import FakeTask
from druid_ingest.testing.fake_time import overlaps

__all__ = ["active_locks", "can_lock", "lock_intervals"]


def _condense(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent or overlapping buckets merged, as AbstractBatchIndexTask condenses them before locking."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def lock_intervals(task: FakeTask) -> list[tuple[int, int]]:
    """Time-chunk locks a task takes in isReady: its intervals aligned to segmentGranularity."""
    return _condense(task.parsed.buckets()) if task.type != "noop" else []


def can_lock(index: TaskIndex, task: FakeTask) -> bool:
    """EXCLUSIVE time-chunk locks conflict on overlap within a datasource (TaskLockbox)."""
    mine = lock_intervals(task)
    return not any(
        other.locks and other.is_active and other.datasource == task.datasource
        and any(overlaps(a, b) for a in other.locks for b in mine)
        for other in index.by_datasource.get(task.datasource, {}).values() if other is not task
    )


def active_locks(index: TaskIndex, ds: str, intervals: list[tuple[int, int]] | None) -> list[FakeTask]:
    """The active tasks of ``ds`` holding a lock that overlaps ``intervals`` (all of them without), by submission."""
    mine = index.by_datasource.get(ds, {})
    return [t for t in sorted(mine.values(), key=lambda x: x.seq)
            if t.is_active and t.locks and t.datasource == ds
            and (not intervals or any(overlaps(a, b) for a in t.locks for b in intervals))]
