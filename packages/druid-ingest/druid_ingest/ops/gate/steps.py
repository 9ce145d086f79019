"""The handoff gate's steps, as generators both clients drive: fix what "loaded" means for a finished task
(:func:`handoff_target`), then look at the timeline (:func:`gate_step`) until the Broker serves it.

Split from ``operations`` (submit and task status): the gate asks the Coordinator, the Broker and the task list,
never the submit path.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from druid_ingest.api import (
    FAILED,
    SUCCESS,
    HandoffResult,
    HandoffTarget,
    ReportSummary,
    Segment,
    TaskStatus,
)
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidError, DruidNotFoundError, DruidUsageError
from druid_ingest.ops._history import SUBTASK_TYPES
from druid_ingest.ops._shared_reads import ServedQuery
from druid_ingest.ops.gate.verdict import (
    GatePlan,
    broker_lag,
    evaluate,
    loading_note,
    plan_gate,
    required_segments,
    span_of,
    version_key,
)
from druid_ingest.ops.operations import failure, report_summary
from druid_ingest.planning import parse_instant
from druid_ingest.wire import Operation, call

__all__ = [
    "check_handoff",
    "gate_chunks",
    "gate_look",
    "gate_step",
    "handoff_target",
    "later_task",
    "target_for",
]


def _spec_datasource(payload: dict[str, Any]) -> str | None:
    schema = (payload.get("spec") or {}).get("dataSchema") or {}
    return schema.get("dataSource") or payload.get("dataSource")


def handoff_target(
    task_id: str,
    datasource: str,
    intervals: list[str],
    append: bool = False,
    version_ceiling: str | None = None,
) -> Operation[HandoffTarget]:
    """Fix what "loaded" means for a SUCCESS task: its createdTime as version floor, the lock ceiling a wait
    observed (``version_ceiling``), its publish count.

    Without ``intervals`` the task's own ``granularitySpec.intervals`` are used (read from its payload).
    ``datasource`` must be the task's own (empty: the task's); a FAILED task raises DruidTaskFailedError.
    The report is optional here: when it cannot be read the count is unknown, nothing more.
    """
    status = yield from call(ep.status(task_id), ep.parse_status)
    if status.state == FAILED:
        raise (yield from failure(status))
    summary = yield from report_summary(task_id) if status.state == SUCCESS else _none()
    return (yield from target_for(status, summary, datasource, intervals, append, version_ceiling))


def _none() -> Operation[None]:
    return None
    yield  # pragma: no cover - makes this a generator


def target_for(
    status: TaskStatus,
    report: ReportSummary | None,
    datasource: str,
    intervals: list[str],
    append: bool = False,
    version_ceiling: str | None = None,
) -> Operation[HandoffTarget]:
    """:func:`handoff_target` from a terminal status and report a wait already holds: no request, unless the
    datasource or intervals must be read from the task's payload."""
    task_id = status.task_id
    if status.state != SUCCESS:
        raise DruidUsageError(f"handoff is only defined for a SUCCESS task; {task_id} is {status.phase}")
    own = status.datasource
    payload: dict[str, Any] | None = None
    if not intervals or not own:
        payload = yield from call(ep.task_payload(task_id), ep.parse_task_payload)
        own = own or _spec_datasource(payload)
    if datasource and own and datasource != own:
        raise DruidUsageError(
            f"Druid task {task_id} ingested into datasource {own!r}, not {datasource!r}: its handoff can only be "
            f"checked on {own!r} (pass that datasource, or leave it empty to use the task's own)"
        )
    if not intervals:
        granularity = (((payload or {}).get("spec") or {}).get("dataSchema") or {}).get("granularitySpec") or {}
        intervals = [str(i) for i in granularity.get("intervals") or []]
        if not intervals:
            raise DruidUsageError(
                f"cannot check handoff of {task_id}: neither the caller nor the task's spec names intervals"
            )
    return HandoffTarget(
        task_id=task_id,
        datasource=datasource or own or "",
        intervals=tuple(intervals),
        min_version=status.created_time or ep.EPOCH,
        append=append,
        segments_published=report.segments_published if report is not None else None,
        version_ceiling=version_ceiling or status.version_ceiling,
        task_message=status.error_msg or None,
        rows_processed=_rows(report),
        ended_at=_ended(status),
    )


def _ended(status: TaskStatus) -> float | None:
    """Druid's own end of a finished task (createdTime + duration, epoch seconds), None when either is missing."""
    if not status.created_time or status.duration_ms is None:
        return None
    try:
        return parse_instant(status.created_time).timestamp() + status.duration_ms / 1000
    except ValueError:
        return None


def _rows(report: ReportSummary | None) -> int | None:
    """Rows that went into segments, when the report has row stats at all (an MSQ or old report may not)."""
    if report is None or not report.row_stats:
        return None
    totals = report.totals()
    return totals.get("processed", 0) + totals.get("processedWithError", 0)


def check_handoff(target: HandoffTarget) -> Operation[HandoffResult]:
    """One look: metadata (fresh, interval-scoped), the served inventory over the span, then the Broker."""
    plan = yield from gate_chunks(target)
    return (yield from gate_look(target, plan))


def gate_chunks(target: HandoffTarget) -> Operation[GatePlan]:
    """The visible pieces that must be served, from the metadata store (the one full read of a check)."""
    used = yield from call(ep.used_segments(target.datasource, list(target.intervals)), ep.parse_used_segments)
    return plan_gate(target, used)


def gate_look(target: HandoffTarget, plan: GatePlan, probe_never: bool = True) -> Operation[HandoffResult]:
    """:func:`gate_step` when the caller keeps no plan."""
    result, _ = yield from gate_step(target, plan, probe_never)
    return result


def gate_step(
    target: HandoffTarget, plan: GatePlan, probe_never: bool = True, ask_why: bool = False
) -> Operation[tuple[HandoffResult, GatePlan]]:
    """One look with ``plan``: the served inventory (ids only) over the required span, ``handoffComplete`` for one
    missing segment when ``probe_never``, the Broker's view once everything is served; and the plan to use next.

    Before trusting ``handoffComplete`` the metadata is read again: Druid answers true for a segment a newer
    version overshadows (it will never load, and need not), so "never" is only said for a segment that a fresh
    read still shows visible, and the fresh plan replaces the old one. With ``ask_why`` (a wait pending past one
    such look already) a segment Druid means to load costs one ``/servers`` read saying why it does not
    (``loading_note``), kept in the plan; an ordinary handoff of seconds never pays it.
    """
    required = required_segments(plan.chunks)
    if not required:
        return evaluate(target, plan.chunks, set(), empty=plan.empty), plan
    span = span_of(required)
    served: set[str] = yield ServedQuery(target.datasource, span)  # shareable with other waits on this datasource
    never: set[str] = set()
    if probe_never and any(s.segment_id not in served for s in required):
        plan = yield from gate_chunks(target)
        required = required_segments(plan.chunks)
        if required and span_of(required) != span:
            span = span_of(required)
            served = yield ServedQuery(target.datasource, span)
        missing = [s for s in required if s.segment_id not in served]
        why = ""
        if missing:
            never, why = yield from _never(target, missing, span, ask_why)
        plan = replace(plan, why=why)
    result = evaluate(target, plan.chunks, served, never, plan.empty)
    if not result.done:
        if result.state == "pending" and result.missing and plan.why:
            result = replace(result, detail=f"{result.detail}; {plan.why}")
        return result, plan
    return (yield from _broker_view(target, plan, result, span)), plan


def _never(
    target: HandoffTarget, missing: list[Segment], span: str, ask_why: bool
) -> Operation[tuple[set[str], str]]:
    """(missing segments that will never load, why the others are not loading). Never: ``handoffComplete`` true
    for a visible, unserved one (its rule has no replicas), confirmed by a fresh inventory read (rules out a load
    in between). Otherwise Druid means to load them, and the servers list may say why it cannot yet."""
    probe = missing[0]
    if not (yield from call(ep.handoff_complete(target.datasource, probe), ep.parse_handoff_complete)):
        return set(), ((yield from _why_not_loading()) if ask_why else "")
    served = yield from call(ep.served_segments(target.datasource, span), ep.parse_served_segments)  # fresh
    if probe.segment_id in served:
        return set(), ""
    return {s.segment_id for s in missing if s.interval == probe.interval and s.version == probe.version}, ""


def _why_not_loading() -> Operation[str]:
    """One ``/servers?simple`` read turned into :func:`loading_note`; any error gives "" (a courtesy, as naming
    the later task is: it never fails a wait)."""
    try:
        servers = yield from call(ep.data_servers(), ep.parse_data_servers)
    except DruidError:
        return ""
    return loading_note(servers)


def _broker_view(target: HandoffTarget, plan: GatePlan, result: HandoffResult, span: str) -> Operation[HandoffResult]:
    """The Broker's candidates must cover every required piece with its version (matched by overlap: they are
    clipped visible pieces) and show no other version there; a superseded verdict then names the later task."""
    try:
        candidates = yield from call(ep.broker_candidates(target.datasource, [span]), ep.parse_broker_candidates)
    except DruidNotFoundError:  # a Broker without ClientInfoResource: the Coordinator's word is all we have
        result = replace(result, detail=result.detail + " (Broker view not available: not confirmed there)")
    else:
        unseen, stale = broker_lag(plan.chunks, candidates)
        if unseen or stale:
            return replace(
                result,
                state="pending",
                detail=f"served, but the Broker does not query {unseen} of them yet"
                + (f" and still reads another version in {stale} piece(s)" if stale else ""),
            )
        result = replace(result, detail=result.detail + "; the Broker queries this version")
    if result.state == "superseded" and result.superseded_by:
        task, note = yield from later_task(target, result.superseded_by)
        result = replace(result, superseded_by_task=task, detail=result.detail + note)
    return result


def later_task(target: HandoffTarget, version: str) -> Operation[tuple[str | None, str]]:
    """(id, detail note) of the task that wrote ``version``, from one task-list read (active and complete).

    The rule: a lock version is granted after its task was created, so the writer is a task of the datasource
    (not this one, not FAILED, not a subtask: those run inside the supervisor that holds the lock, and Druid lists
    them beside it) created at or before ``version``; of those, the one created last. When another such
    task's [createdTime, createdTime + duration] also contains ``version`` the answer is ambiguous and the note says
    so (naming both). Any error gives (None, ""): naming is a courtesy, never a failed wait.
    """
    try:
        listed = yield from call(ep.tasks(None, target.datasource), ep.parse_tasks)
    except DruidError:
        return None, ""
    at = version_key(version)
    writers = [t for t in listed if t.task_id != target.task_id and t.state != FAILED and t.created_time
               and t.task_type not in SUBTASK_TYPES and t.group_id in (None, t.task_id)
               and version_key(t.created_time) <= at]
    if not writers:
        return None, ""
    writers.sort(key=lambda t: version_key(t.created_time or ""), reverse=True)
    best, others = writers[0], [t for t in writers[1:] if _spans(t, at)]
    kind = f"{best.task_type} task" if best.task_type else "task"
    note = f"; written by {kind} {best.task_id}"
    if others:
        note += f" (ambiguous: {', '.join(t.task_id for t in others)} also ran then)"
    return best.task_id, note


def _spans(task: TaskStatus, at: tuple[int, datetime | str]) -> bool:
    """Did ``task`` (created before ``at``) still run at ``at``? Running tasks did; complete ones by duration."""
    if not task.is_terminal:
        return True
    if task.duration_ms is None or not task.created_time or at[0] != 0:
        return False
    try:
        end = parse_instant(task.created_time) + timedelta(milliseconds=task.duration_ms)
    except ValueError:
        return False
    return isinstance(at[1], datetime) and end >= at[1]
