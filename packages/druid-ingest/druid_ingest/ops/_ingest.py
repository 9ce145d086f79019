"""The whole contract in one call: submit or adopt, wait for the task, wait until its data is queryable."""

from __future__ import annotations

import time

from druid_ingest.errors import DruidUsageError
from druid_ingest.ops._evidence import AfterFailedPublish
from druid_ingest.ops._history import WaitMemory
from druid_ingest.ops._nothing_to_compact import nothing_to_compact
from druid_ingest.ops._options import check_on_never
from druid_ingest.ops._outcomes import IngestResult
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.ops.operations import ensure_submitted, report_summary
from druid_ingest.ops.step_lines import capacity_verdict
from druid_ingest.ops.waits import DEFAULT_REPORT_EVERY, Clock, watch_ingestion
from druid_ingest.planning import Plan
from druid_ingest.wire import Operation

__all__ = ["ingest"]


def ingest(
    plan: Plan,
    *,
    task_timeout: float,
    handoff_timeout: float | None,
    schedule: PollSchedule | None = None,
    on_never: str = "fail",
    allow_empty: bool = False,
    max_attempts: int = 20,
    clock: Clock = time.time,
    report_every: float = DEFAULT_REPORT_EVERY,
    memory: WaitMemory | None = None,
    after_failed_publish: AfterFailedPublish = "fail",
) -> Operation[IngestResult]:
    """IngestResult once the data is queryable (``handoff_timeout=None``: once the task succeeded).

    The same steps, in the same order, as the orchestrator faces: the capacity check (``capacity_verdict``: a
    plan that would deadlock raises DruidUsageError before any submit; a warning is on the result), then
    ``ensure_submitted``, then ``watch_ingestion`` (its first look ``poll_interval`` after a submit).

    Raises DruidTaskFailedError (full errorMsg, row stats, first unparseable events) for a FAILED task,
    HandoffNeverError for zero-replica segments with ``on_never="fail"``, DruidEmptyIngestionError when the task
    published nothing (unless ``allow_empty``), DruidWaitTimeoutError on either timeout. A compaction of an
    interval without used segments raises DruidNothingToCompactError, or with ``allow_empty`` is green: the
    result's ``nothing_to_compact`` says so (``status`` is Druid's FAILED task, no gate ran).
    """
    check_on_never(on_never)
    capacity = yield from capacity_verdict(plan.peak_slots, memory)
    if capacity is not None and capacity[0] == "error":
        raise DruidUsageError(capacity[1])
    # allow_empty also turns off the pre-submit input probe of a dropExisting replace (operations.probe_input)
    submitted = yield from ensure_submitted(plan, max_attempts, allow_empty=allow_empty,
                                            after_failed_publish=after_failed_publish)
    start = clock()
    outcome = yield from watch_ingestion(
        submitted.task_id, plan.datasource, list(plan.intervals), plan.append, start + task_timeout,
        handoff_timeout if plan.publishes else None, schedule, clock, report_every, memory,  # a kill: no gate
        submitted_at=start if submitted.action == "submitted" else None,
    )
    empty = nothing_to_compact(plan, outcome.task, allow_empty)  # raises DruidNothingToCompactError without it
    if empty is not None and outcome.task.status is not None:
        return IngestResult(submitted, outcome.task.status, None, None, capacity, nothing_to_compact=empty)
    status = outcome.task.settle()
    handoff = outcome.handoff.settle(on_never, allow_empty) if outcome.handoff is not None else None
    report = outcome.task.report or (yield from report_summary(status.task_id))
    return IngestResult(submitted, status, report, handoff, capacity)
