"""What a wait's progress sink receives, and the one way every face turns it into log lines.

The waits hand their ``on_progress`` sink a :data:`ProgressItem` per look: a :class:`TaskProgress` while the task
runs, a :class:`HandoffResult` while the gate waits. The Airflow operator, sensor and triggers and the Dagster ops
all log through :class:`ProgressLines`, so a user reads the same lines, and as few, whichever face ran the wait.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from druid_ingest.api import HandoffResult
from druid_ingest.ops.waits import TaskProgress

__all__ = ["ProgressItem", "ProgressLines", "describe_progress"]

#: one look of a wait, as its progress sink receives it
ProgressItem: TypeAlias = TaskProgress | HandoffResult


def describe_progress(item: ProgressItem, task_id: str) -> str:
    """The log line for one look: the task's phase (and row counts when a report came), or the gate's verdict."""
    if isinstance(item, TaskProgress):
        return item.line()
    return f"Handoff of Druid task {task_id}: {item.state}: {item.detail}"


class ProgressLines:
    """A progress sink that emits :func:`describe_progress` lines, without repeats: a running task is logged when
    its phase changes or a fresh report arrives, the gate when its verdict changes. Anything else is ignored.

    Slotted, and the last task line remembered by its phase alone (a shared string, no tuple): a triggerer keeps
    one per wait for the whole wait."""

    __slots__ = ("_emit", "_last", "_task_id")

    def __init__(self, emit: Callable[[str], None], task_id: str) -> None:
        self._emit = emit
        self._task_id = task_id
        #: the task's last phase logged (a str), or ("handoff", the gate's last verdict logged)
        self._last: str | tuple[str, str] | None = None

    def __call__(self, item: object) -> None:
        key: str | tuple[str, str]
        if isinstance(item, TaskProgress):
            key = item.status.phase
            if item.report is None and key == self._last:
                return
        elif isinstance(item, HandoffResult):
            key = ("handoff", f"{item.state}: {item.detail}")
            if key == self._last:
                return
        else:
            return
        self._last = key
        self._emit(describe_progress(item, self._task_id))
