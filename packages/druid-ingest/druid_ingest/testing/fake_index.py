"""The fake Overlord's active tasks by phase, so advancing the clock looks only at tasks with something due.

``ClusterState.tasks`` keeps every task (insertion order = submission order); this index mirrors the active ones:
WAITING for their locks, PENDING for a slot, RUNNING (with the slots they hold), RUNNING in the segment-availability
wait, and the planned ends of RUNNING tasks in a heap. With it a submit or a status read costs O(log n) in the
number of tasks instead of a scan and a sort of all of them (issue 20: 10,000 tasks for the P3 benchmark).
"""

from __future__ import annotations

import heapq

from druid_ingest.testing.fake_tasks import FakeTask

__all__ = ["TaskIndex"]


class TaskIndex:
    def __init__(self) -> None:
        self.waiting: dict[str, FakeTask] = {}
        self.pending: dict[str, FakeTask] = {}
        self.running: dict[str, FakeTask] = {}
        self.availability: dict[str, FakeTask] = {}
        self.by_datasource: dict[str, dict[str, FakeTask]] = {}
        self.used = 0  # slots held by RUNNING tasks
        self._ends: list[tuple[float, int, str]] = []  # (end_at, seq, id) of RUNNING tasks that will end

    def add(self, task: FakeTask) -> None:
        self.waiting[task.id] = task
        self.by_datasource.setdefault(task.datasource, {})[task.id] = task

    def forget(self, task: FakeTask) -> None:
        self.finished(task, 0)
        self.by_datasource.get(task.datasource, {}).pop(task.id, None)

    def locked(self, task: FakeTask) -> None:
        self.waiting.pop(task.id, None)
        self.pending[task.id] = task

    def started(self, task: FakeTask, slots: int) -> None:
        self.pending.pop(task.id, None)
        self.running[task.id] = task
        self.used += slots
        if not task.deadlocked and task.end_at is not None:
            heapq.heappush(self._ends, (task.end_at, task.seq, task.id))

    def awaiting_availability(self, task: FakeTask) -> None:
        self.availability[task.id] = task

    def finished(self, task: FakeTask, slots: int) -> None:
        self.waiting.pop(task.id, None)
        self.pending.pop(task.id, None)
        self.availability.pop(task.id, None)
        if self.running.pop(task.id, None) is not None:
            self.used -= slots

    def _live(self, entry: tuple[float, int, str]) -> FakeTask | None:
        """The task of a heap entry if it still runs to that end (entries of finished tasks are dropped lazily)."""
        task = self.running.get(entry[2])
        if task is None or task.end_at != entry[0] or task.ingestion_state == "SEGMENT_AVAILABILITY_WAIT":
            return None
        return task

    def next_end(self) -> float | None:
        """The earliest planned end of a RUNNING task."""
        while self._ends and self._live(self._ends[0]) is None:
            heapq.heappop(self._ends)
        return self._ends[0][0] if self._ends else None

    def pop_due(self, t: float) -> list[FakeTask]:
        """The RUNNING tasks whose planned end is at or before ``t``, taken off the heap."""
        due = []
        while self._ends and self._ends[0][0] <= t:
            task = self._live(heapq.heappop(self._ends))
            if task is not None:
                due.append(task)
        return due
