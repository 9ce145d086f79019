"""JSON bodies of the fake Overlord: TaskStatusPlus, TaskStatus, task reports, worker info (druid-contract
§status-druid-contract §workers)."""

from __future__ import annotations

from typing import Any

from druid_ingest.testing.fake_tasks import FakeTask
from druid_ingest.testing.fake_time import format_instant, format_interval

__all__ = [
    "EPOCH",
    "UNKNOWN_LOCATION",
    "duration_ms",
    "list_entry",
    "location",
    "lock_entries",
    "report",
    "status_plus",
    "status_response",
    "subtask_entries",
    "task_status",
    "truncate_error",
    "workers",
]

EPOCH = "1970-01-01T00:00:00.000Z"
UNKNOWN_LOCATION = {"host": None, "port": -1, "tlsPort": -1}
_TRUNCATION_LIMIT = 1024  # TaskStatus.MAX_ERROR_MSG_TRUNCATION_LIMIT


def truncate_error(msg: str | None) -> str | None:
    """druid-contract §status: first 512 + ``...N characters omitted...`` + last 512 when longer than 1024."""
    if msg is None or len(msg) <= _TRUNCATION_LIMIT:
        return msg
    half = _TRUNCATION_LIMIT // 2
    return f"{msg[:half]}...{len(msg) - _TRUNCATION_LIMIT} characters omitted...{msg[-half:]}"


def duration_ms(task: FakeTask) -> int:
    # druid-contract §status: -1 while running, ms after completion.
    if task.is_active:
        return -1
    if task.start_at is None or task.finished_at is None:
        return 0
    return int((task.finished_at - task.start_at) * 1000)


def location(task: FakeTask) -> dict[str, Any]:
    # druid-contract §status: live runner location while known, else the one stored with the final status, else unknown.
    return dict(task.location) if task.start_at is not None else dict(UNKNOWN_LOCATION)


def status_plus(task: FakeTask, runner_state: str) -> dict[str, Any]:
    """TaskStatusPlus (druid-contract §status); ``status`` duplicates ``statusCode`` (deprecated field)."""
    return {
        "id": task.id,
        "groupId": task.group_id,
        "type": task.type,
        "createdTime": task.created_time,
        "queueInsertionTime": EPOCH,  # druid-contract §status: always EPOCH
        "statusCode": task.state,
        "status": task.state,
        "runnerStatusCode": runner_state,
        "duration": duration_ms(task),
        "location": location(task),
        "dataSource": task.datasource,
        "errorMsg": truncate_error(task.error_msg),
    }


def status_response(task: FakeTask) -> dict[str, Any]:
    # druid-contract §status quirk: once the runner forgets a completed task, getTaskStatus hard-codes
    # RunnerTaskState.WAITING.
    runner = "WAITING" if not task.is_active else task.runner_state
    return {"task": task.id, "status": status_plus(task, runner)}


def list_entry(task: FakeTask) -> dict[str, Any]:
    # druid-contract §status: list APIs show NONE for completed tasks. Druid 33 (RECORDED.md §13): for a task the
    # runner has, the
    # list shows the work item's queueInsertionTime (a few ms after its lock was granted), not EPOCH.
    entry = status_plus(task, task.runner_state if task.is_active else "NONE")
    if task.is_active and task.runner_state in ("PENDING", "RUNNING") and task.queued_time:
        entry["queueInsertionTime"] = task.queued_time
    return entry


def subtask_entries(task: FakeTask) -> list[dict[str, Any]]:
    """The completed subtasks a parallel ingestion leaves in Druid's task list, newest first (created after their
    supervisor): ``ParallelIndexSupervisorTask`` runs one ``single_phase_sub_task`` per input split with dynamic
    partitioning; the fake gives it ``maxNumConcurrentSubTasks`` of them, each with the supervisor's group id."""
    if not task.parsed.parallel or task.parsed.max_subtasks < 2:
        return []
    parent = list_entry(task)
    return [{**parent, "id": f"single_phase_sub_task_{task.datasource}_{task.id}_{n}", "type": "single_phase_sub_task",
             "groupId": task.group_id} for n in range(task.parsed.max_subtasks, 0, -1)]


def lock_entries(task: FakeTask) -> list[dict[str, Any]]:
    """TaskLock JSON of ``POST /activeLocks`` (Druid 33, RECORDED.md §13): one per locked interval."""
    return [{"granularity": "timeChunk", "type": "EXCLUSIVE", "groupId": task.group_id, "dataSource": task.datasource,
             "interval": format_interval(interval), "version": task.version, "priority": _priority(task),
             "revoked": False} for interval in task.locks]


def _priority(task: FakeTask) -> int:
    # Task.getDefaultPriority: batch index tasks 50 unless the context sets "priority".
    value = task.spec.get("context", {}).get("priority", 50)
    return int(value) if isinstance(value, int | float) else 50


def task_status(task: FakeTask) -> dict[str, Any]:
    """TaskStatus (druid-contract §bulk-status bulk status): state under ``status``; active tasks RUNNING with runner
    location."""
    return {"id": task.id, "status": task.state, "duration": duration_ms(task),
            "errorMsg": truncate_error(task.error_msg), "location": location(task)}


def _counters(processed: int, unparseable: int, thrown_away: int) -> dict[str, int]:
    # RowIngestionMetersTotals
    return {"processed": processed, "processedBytes": processed * 100, "processedWithError": 0,
            "thrownAway": thrown_away, "unparseable": unparseable}


def _row_totals(task: FakeTask, fraction: float) -> dict[str, int]:
    plan = task.plan
    rows = max(plan.rows_per_bucket, 0) * max(len(task.parsed.buckets()), 1)
    return _counters(int(rows * fraction), int(plan.unparseable * fraction), int(plan.thrown_away * fraction))


def _parse_exception_samples(task: FakeTask) -> list[dict[str, Any]]:
    # maxSavedParseExceptions (default 0) bounds the saved ParseExceptionReports.
    count = min(task.plan.unparseable, task.parsed.max_saved_parse_exceptions)
    base = int((task.end_at or task.created_at) * 1000)
    return [{"input": f"fake,row,{i}", "errorType": "unparseable",
             "details": [f"Unable to parse row [fake,row,{i}]"], "timeOfExceptionMillis": base}
            for i in range(count)]


def report(task: FakeTask, now: float) -> dict[str, Any] | None:
    """druid-contract §reports: live report while the runner has the task, the stored one after; None = 404."""
    if task.start_at is None:
        return None  # never ran: no peon, no report file
    if task.type == "query_controller":
        from druid_ingest.testing.fake_msq import msq_report

        return msq_report(task, now)
    parallel = task.parsed.parallel
    samples = _parse_exception_samples(task)
    if task.is_active and task.runner_state == "RUNNING":
        run = max(task.duration, 1e-9)
        fraction = 1.0 if task.ingestion_state == "SEGMENT_AVAILABILITY_WAIT" else min(
            max((now - task.start_at) / run, 0.0), 1.0)
        totals = _row_totals(task, fraction)
        avg = {k: float(v) / 60.0 for k, v in totals.items()}
        payload: dict[str, Any] = {
            "ingestionState": task.ingestion_state,
            "unparseableEvents": {"buildSegments": samples[: int(len(samples) * fraction)]},
            "rowStats": {  # druid-contract §reports live report: movingAverages + totals
                "movingAverages": {"buildSegments": {"1m": avg, "5m": avg, "15m": avg}},
                "totals": {"buildSegments": totals},
            },
            "errorMsg": None,
            "segmentAvailabilityConfirmed": False,
            "segmentAvailabilityWaitTimeMs": 0,
        }
        return {"ingestionStatsAndErrors": {"type": "ingestionStatsAndErrors", "taskId": task.id,
                                            "payload": payload}}
    if not task.plan.report:
        return None
    if parallel and task.parsed.partitions_type == "range" and (task.state == "FAILED"
                                                                or task.published_count is None):
        # Druid 33 (RECORDED.md §2, §12): a failed range-partitioned supervisor, and one whose input had no
        # rows, writes no report -> 404.
        return None
    ran = (task.finished_at or now) - task.start_at
    totals = _row_totals(task, 1.0 if task.state == "SUCCESS" else min(ran / max(task.duration, 1e-9), 1.0))
    # druid-contract §reports: parallel {"totals": {"buildSegments"}}; sequential determinePartitions + buildSegments
    if parallel:
        row_stats: dict[str, Any] = {"totals": {"buildSegments": totals}}
        unparseable: dict[str, Any] = {"buildSegments": samples}
    else:
        row_stats = {"determinePartitions": _counters(0, 0, 0), "buildSegments": totals}
        unparseable = {"determinePartitions": [], "buildSegments": samples}
    payload = {
        "ingestionState": task.ingestion_state,
        "unparseableEvents": unparseable,
        "rowStats": row_stats,
        "errorMsg": task.error_msg,  # druid-contract §reports: the full message (status truncates it)
        "segmentAvailabilityConfirmed": task.availability_confirmed,
        "segmentAvailabilityWaitTimeMs": task.availability_wait_ms,
        # Druid 33 (RECORDED.md §3): {} in parallel mode; sequential mode not recorded.
        "recordsProcessed": {} if parallel else None,
    }
    if task.published_count is not None and task.plan.report_segments_published:  # omitted when null
        payload["segmentsPublished"] = task.published_count  # druid-contract §reports: count, tombstones included
    return {
        "ingestionStatsAndErrors": {"type": "ingestionStatsAndErrors", "taskId": task.id, "payload": payload},
        "taskContext": {"type": "taskContext", "taskId": task.id, "payload": task.spec.get("context", {})},
    }


def workers(running: list[FakeTask], capacity: int, used: int, last_completed: str | None) -> list[dict]:
    """druid-contract §workers ImmutableWorkerInfo[] for the single fake worker."""
    by_type: dict[str, int] = {}
    for task in running:
        by_type[task.type] = by_type.get(task.type, 0) + min(task.parsed.slots, capacity)
    info: dict[str, Any] = {
        "worker": {"scheme": "http", "host": "127.0.0.1:8091", "ip": "127.0.0.1", "capacity": capacity,
                   "version": "0", "category": "_default_worker_category"},
        "currCapacityUsed": used,
        "currParallelIndexCapacityUsed": sum(1 for t in running if t.type == "index_parallel"),
        "availabilityGroups": sorted(t.group_id for t in running),
        "runningTasks": sorted(t.id for t in running),
        "lastCompletedTaskTime": last_completed or format_instant(0),
    }
    if by_type:
        info["currCapacityUsedByTaskType"] = by_type
    return [info]
