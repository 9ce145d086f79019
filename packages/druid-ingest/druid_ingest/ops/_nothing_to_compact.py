"""A compaction with nothing to compact: recognised once here, for the core's ``ingest``, ``ensure_submitted`` and
every face.

Why: Druid fails a ``compact`` task whose interval holds no used segment while the task waits to be ready
(observed on Druid 33: "No segments found for compaction. Please check that datasource name and interval are
correct."). That FAILED is not a crash to retry: the answer is the same every time until data arrives. So it is
its own error, :class:`DruidNothingToCompactError` (still a DruidTaskFailedError, never retried), or, with
``allow_empty=True``, a green outcome: the caller reads "nothing to compact", no handoff gate runs (nothing was
written) and nothing is submitted again (``ensure_submitted`` adopts that FAILED attempt, as it adopts a SUCCESS).
"""

from __future__ import annotations

from druid_ingest.api import TaskStatus
from druid_ingest.errors import DruidNothingToCompactError
from druid_ingest.ops._outcomes import NothingToCompact, TaskOutcome
from druid_ingest.planning import Plan

__all__ = ["DRUID_NOTHING_TO_COMPACT", "failed_for_want_of_segments", "nothing_to_compact"]

#: the start of Druid's errorMsg (``CompactionTask.isReady`` finding no segment to lock; wrapped by the Overlord
#: as "Encountered error[...] while waiting for task to be ready")
DRUID_NOTHING_TO_COMPACT = "No segments found for compaction"


def failed_for_want_of_segments(plan: Plan, status: TaskStatus) -> bool:
    """Whether ``status`` is this plan's compaction FAILED by Druid for want of segments (its errorMsg says so)."""
    return plan.kind == "compaction" and status.state == "FAILED" and \
        DRUID_NOTHING_TO_COMPACT in (status.error_msg or "")


def _said(plan: Plan, task: TaskOutcome) -> bool:
    if plan.kind != "compaction" or task.kind != "failed":
        return False
    if task.status is not None:  # the worker's own wait: Druid's errorMsg as it came
        return failed_for_want_of_segments(plan, task.status)
    return DRUID_NOTHING_TO_COMPACT in task.message  # a trigger event: the message holds Druid's errorMsg


def nothing_to_compact(plan: Plan, task: TaskOutcome, allow_empty: bool) -> NothingToCompact | None:
    """None unless ``task`` is ``plan``'s compaction that Druid failed for want of segments; then, with
    ``allow_empty``, the green :class:`NothingToCompact`; without it, raises :class:`DruidNothingToCompactError`
    naming the datasource, the interval and the opt-out."""
    if not _said(plan, task):
        return None
    interval = ", ".join(plan.intervals)
    if allow_empty:
        line = (f"Nothing to compact: {plan.datasource!r} holds no used segment in {interval}, so Druid task "
                f"{task.task_id} ended without running (allow_empty=True: green, nothing written, no handoff "
                "gate, nothing submitted again)")
        return NothingToCompact(task.task_id, plan.datasource, interval, line)
    error_msg = task.status.error_msg if task.status is not None else None
    raise DruidNothingToCompactError(
        task.task_id, error_msg,
        f"Nothing to compact: datasource {plan.datasource!r} holds no used segment in {interval}, so Druid failed "
        f"compaction task {task.task_id} before it ran ({DRUID_NOTHING_TO_COMPACT}). Check the datasource name and "
        "the interval; if an empty interval is expected, pass allow_empty=True (CLI: --allow-empty) to take it as "
        "done. A retry adopts this task and ends the same way; to compact after data arrives, use a new "
        "idempotency_key",
        datasource=plan.datasource, interval=interval,
    )
