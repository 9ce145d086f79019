"""Operations and waits: multi-step generators both clients drive (submit or adopt, the task wait, the handoff
gate, the timeline check, the input probe), their outcomes, poll schedules, history, capacity, and the
batchable queries a driver may answer for many waits at once.

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._capacity import pool_size, slots_finding
    from ._history import WaitMemory, ingestion_durations, percentile, task_history
    from ._ingest import ingest
    from ._options import OnNever, check_on_never
    from ._outcomes import HandoffOutcome, IngestionOutcome, TaskOutcome
    from ._queries import ServedQuery, StatusQuery, TaskQuery, ceiling_from_locks, direct, holds_lock, listed_ceiling
    from ._step_rules import SHUTDOWN_RETRY, StepLine, capacity_verdict, shutdown_task, submit_lines
    from ._waits import TaskProgress

#: where each public name lives
_WHERE = {
    "HandoffOutcome": "_outcomes",
    "IngestionOutcome": "_outcomes",
    "OnNever": "_options",
    "ServedQuery": "_queries",
    "StatusQuery": "_queries",
    "TaskQuery": "_queries",
    "ceiling_from_locks": "_queries",
    "holds_lock": "_queries",
    "listed_ceiling": "_queries",
    "TaskOutcome": "_outcomes",
    "TaskProgress": "_waits",
    "check_on_never": "_options",
    "direct": "_queries",
    "ingest": "_ingest",
    "ingestion_durations": "_history",
    "WaitMemory": "_history",
    "percentile": "_history",
    "task_history": "_history",
    "pool_size": "_capacity",
    "SHUTDOWN_RETRY": "_step_rules",
    "StepLine": "_step_rules",
    "capacity_verdict": "_step_rules",
    "shutdown_task": "_step_rules",
    "submit_lines": "_step_rules",
    "slots_finding": "_capacity",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SHUTDOWN_RETRY",
    "HandoffOutcome",
    "IngestionOutcome",
    "OnNever",
    "ServedQuery",
    "StatusQuery",
    "StepLine",
    "TaskOutcome",
    "TaskProgress",
    "TaskQuery",
    "WaitMemory",
    "capacity_verdict",
    "ceiling_from_locks",
    "check_on_never",
    "direct",
    "holds_lock",
    "ingest",
    "ingestion_durations",
    "listed_ceiling",
    "percentile",
    "pool_size",
    "shutdown_task",
    "slots_finding",
    "submit_lines",
    "task_history",
]
