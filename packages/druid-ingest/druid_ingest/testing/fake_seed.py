"""Changes to the fake's task rows that tests and benchmarks make directly, not through a Druid API call.

``FakeDruid.seed_tasks`` puts thousands of tasks in at one instant (the P3 and P6 benchmarks: 10,000 waits in
seconds, no HTTP), and ``FakeDruid.forget_task`` deletes a completed task's row as Druid's metadata cleanup
does. Neither is part of the Overlord's submit path or the event loop, so they live here, beside
``ClusterState`` rather than in it.
"""

from __future__ import annotations

from typing import Any

from druid_ingest.testing.fake_state import ClusterState
from druid_ingest.testing.fake_tasks import FakeTask, ParsedTask

__all__ = ["forget", "insert_tasks"]


def insert_tasks(state: ClusterState, items: list[tuple[str, ParsedTask, dict[str, Any]]],
                 now: float) -> list[FakeTask]:
    """Many submits at one instant, the clock advanced once before and once after (not once per task)."""
    with state.lock:
        state.advance(now)
        out = [state.add_task(task_id, parsed, payload, now) for task_id, parsed, payload in items]
        state.advance(now)
        return out


def forget(state: ClusterState, task_id: str) -> None:
    """Delete a completed task's row: its id is unknown from then on."""
    with state.lock:
        task = state.tasks.pop(task_id)
        state.index.forget(task)
        state.touch()
