"""Operations and waits: multi-step generators both clients drive (submit or adopt, the task wait, the handoff
gate, the timeline check, the input probe, a segment write and its wait, a look of the served-changes watch and its
first-look rule, the pause and resume of auto-compaction), their outcomes, poll schedules, history, capacity, and
the batchable queries a driver may answer for many waits at once.

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from ._capacity import pool_size, slots_finding
    from ._evidence import AFTER_FAILED_PUBLISH, AfterFailedPublish, check_after_failed_publish
    from ._history import WaitMemory, ingestion_durations, many_histories, newest_of_type, percentile, task_history
    from ._ingest import ingest
    from ._input_probe import PROBE_READ_OK
    from ._nothing_to_compact import DRUID_NOTHING_TO_COMPACT, nothing_to_compact
    from ._options import DEFAULT_HANDOFF_TIMEOUT, DEFAULT_TASK_TIMEOUT, OnNever, check_on_never
    from ._outcomes import (
        HandoffOutcome,
        HandoffVerdict,
        IngestionOutcome,
        IngestResult,
        NothingToCompact,
        SubmitOutcome,
        TaskOutcome,
    )
    from ._poll_schedule import PollSchedule
    from ._progress import ProgressItem, ProgressLines, describe_progress
    from ._shared_reads import (
        ServedQuery,
        StatusQuery,
        TaskQuery,
        ceiling_from_locks,
        direct,
        holds_lock,
        listed_ceiling,
    )
    from .auto_compaction import AutoCompactionPause, AutoCompactionResume
    from .segment_write import SegmentWriteResult
    from .step_lines import SHUTDOWN_RETRY, StepLine, capacity_verdict, shutdown_task, submit_lines
    from .waits import TaskProgress
    from .watch.changes import ChangeKind, ServedChange
    from .watch.cursor import WatchCursor
    from .watch.look import REPORTED_KINDS, WATCH_EVERY, ChangeBatch, first_batch, next_look, watch_window

#: where each public name lives
_WHERE = {
    "PollSchedule": "_poll_schedule",
    "AFTER_FAILED_PUBLISH": "_evidence",
    "AfterFailedPublish": "_evidence",
    "check_after_failed_publish": "_evidence",
    "ProgressItem": "_progress",
    "ProgressLines": "_progress",
    "describe_progress": "_progress",
    "SegmentWriteResult": "segment_write",
    "AutoCompactionPause": "auto_compaction",
    "AutoCompactionResume": "auto_compaction",
    "IngestResult": "_outcomes",
    "DRUID_NOTHING_TO_COMPACT": "_nothing_to_compact",
    "NothingToCompact": "_outcomes",
    "nothing_to_compact": "_nothing_to_compact",
    "PROBE_READ_OK": "_input_probe",
    "SubmitOutcome": "_outcomes",
    "HandoffOutcome": "_outcomes",
    "HandoffVerdict": "_outcomes",
    "IngestionOutcome": "_outcomes",
    "DEFAULT_HANDOFF_TIMEOUT": "_options",
    "DEFAULT_TASK_TIMEOUT": "_options",
    "OnNever": "_options",
    "ServedQuery": "_shared_reads",
    "StatusQuery": "_shared_reads",
    "TaskQuery": "_shared_reads",
    "ceiling_from_locks": "_shared_reads",
    "holds_lock": "_shared_reads",
    "listed_ceiling": "_shared_reads",
    "TaskOutcome": "_outcomes",
    "TaskProgress": "waits",
    "check_on_never": "_options",
    "direct": "_shared_reads",
    "ingest": "_ingest",
    "ingestion_durations": "_history",
    "WaitMemory": "_history",
    "percentile": "_history",
    "task_history": "_history",
    "many_histories": "_history",
    "newest_of_type": "_history",
    "pool_size": "_capacity",
    "SHUTDOWN_RETRY": "step_lines",
    "StepLine": "step_lines",
    "capacity_verdict": "step_lines",
    "shutdown_task": "step_lines",
    "submit_lines": "step_lines",
    "slots_finding": "_capacity",
    "ChangeBatch": "watch.look",
    "REPORTED_KINDS": "watch.look",
    "WATCH_EVERY": "watch.look",
    "watch_window": "watch.look",
    "next_look": "watch.look",
    "first_batch": "watch.look",
    "ChangeKind": "watch.changes",
    "ServedChange": "watch.changes",
    "WatchCursor": "watch.cursor",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "AFTER_FAILED_PUBLISH",
    "DEFAULT_HANDOFF_TIMEOUT",
    "DEFAULT_TASK_TIMEOUT",
    "DRUID_NOTHING_TO_COMPACT",
    "PROBE_READ_OK",
    "REPORTED_KINDS",
    "SHUTDOWN_RETRY",
    "WATCH_EVERY",
    "AfterFailedPublish",
    "AutoCompactionPause",
    "AutoCompactionResume",
    "ChangeBatch",
    "ChangeKind",
    "HandoffOutcome",
    "HandoffVerdict",
    "IngestResult",
    "IngestionOutcome",
    "NothingToCompact",
    "OnNever",
    "PollSchedule",
    "ProgressItem",
    "ProgressLines",
    "SegmentWriteResult",
    "ServedChange",
    "ServedQuery",
    "StatusQuery",
    "StepLine",
    "SubmitOutcome",
    "TaskOutcome",
    "TaskProgress",
    "TaskQuery",
    "WaitMemory",
    "WatchCursor",
    "capacity_verdict",
    "ceiling_from_locks",
    "check_after_failed_publish",
    "check_on_never",
    "describe_progress",
    "direct",
    "first_batch",
    "holds_lock",
    "ingest",
    "ingestion_durations",
    "listed_ceiling",
    "many_histories",
    "newest_of_type",
    "next_look",
    "nothing_to_compact",
    "percentile",
    "pool_size",
    "shutdown_task",
    "slots_finding",
    "submit_lines",
    "task_history",
    "watch_window",
]
