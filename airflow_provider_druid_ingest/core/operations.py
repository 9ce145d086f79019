"""Multi-step operations, written once as generators that both clients drive.

Each yields :class:`~.http.Request` (answered with a Response after the shared retry/redirect loop) and
:class:`~.exchange.Sleep`, and returns a model. Errors from a request are thrown back into the
generator at its ``yield``, so an operation can handle the ones it expects (404 unknown task, a refused
bulk call) and let the rest propagate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from . import endpoints as ep
from .errors import (
    DruidAuthError,
    DruidError,
    DruidNotFoundError,
    DruidValidationError,
    DruidWaitTimeoutError,
    DuplicateTaskIdError,
    HandoffNeverError,
    UnknownTaskError,
)
from .exchange import Operation, Sleep, call
from .handoff import broker_lag, evaluate, select_task_segments, span_of
from .ids import attempt_id
from .models import FAILED, SUCCESS, HandoffResult, HandoffTarget, SubmitOutcome, TaskStatus
from .retry import PollSchedule


def status_or_none(task_id: str) -> Operation[TaskStatus | None]:
    try:
        return (yield from call(ep.status(task_id), ep.parse_status))
    except UnknownTaskError:
        return None


def bulk_status(task_ids: list[str]) -> Operation[dict[str, TaskStatus]]:
    """One POST for many ids; per-task GETs when the bulk call is refused (403 without STATE WRITE, or an
    older/proxied cluster answering 404/405). Unknown ids are absent from the result."""
    if not task_ids:
        return {}
    try:
        return (yield from call(ep.bulk_status(task_ids), ep.parse_bulk_status))
    except (DruidAuthError, DruidNotFoundError, DruidValidationError):
        pass
    found: dict[str, TaskStatus] = {}
    for task_id in task_ids:
        status = yield from status_or_none(task_id)
        if status is not None:
            found[task_id] = status
    return found


def ensure_submitted(spec: dict[str, Any], base_id: str, max_attempts: int = 20) -> Operation[SubmitOutcome]:
    """Make sure exactly one live-or-succeeded task exists for this work, submitting only if needed.

    Attempt ids are probed in order: RUNNING/SUCCESS is adopted (never resubmitted), FAILED moves on
    to the next attempt id, absent is submitted. A duplicate-id 400 (a racing submitter, or our own
    retried POST that Druid had accepted) is resolved by reading that task's status, never assumed.
    """
    for attempt in range(max_attempts):
        task_id = attempt_id(base_id, attempt)
        status = yield from status_or_none(task_id)
        if status is None:
            try:
                yield from call(ep.submit({**spec, "id": task_id}), ep.parse_submit)
                return SubmitOutcome(task_id, "submitted", attempt, "RUNNING", base_id)
            except DuplicateTaskIdError:
                status = yield from _status_after_duplicate(task_id)
        if status.state != FAILED:
            return SubmitOutcome(task_id, "adopted", attempt, status.state, base_id)
    raise DruidError(
        f"{max_attempts} attempts of {base_id} all FAILED; not submitting again. Inspect the failures, "
        "then pass a new idempotency key to start a fresh series"
    )


def _status_after_duplicate(task_id: str) -> Operation[TaskStatus]:
    for _ in range(5):
        status = yield from status_or_none(task_id)
        if status is not None:
            return status
        yield Sleep(0.5)
    raise DruidError(f"Druid says task {task_id} already exists but will not report its status")


def wait_for_task(
    task_id: str,
    timeout: float,
    schedule: PollSchedule | None = None,
    on_poll: Callable[[TaskStatus], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Operation[TaskStatus]:
    """Poll ``/status`` until SUCCESS or FAILED (``statusCode`` only: A.2), or raise on ``timeout``."""
    schedule = schedule or PollSchedule()
    deadline = clock() + timeout
    polls = 0
    while True:
        status = yield from call(ep.status(task_id), ep.parse_status)
        if status.is_terminal:
            return status
        if on_poll is not None:
            on_poll(status)
        remaining = deadline - clock()
        if remaining <= 0:
            raise DruidWaitTimeoutError(f"Druid task {task_id} still {status.phase} after {timeout:.0f}s")
        polls += 1
        yield Sleep(min(schedule.delay(polls), remaining))


def handoff_target(
    task_id: str, datasource: str, intervals: list[str], append: bool = False
) -> Operation[HandoffTarget]:
    """Fix what "loaded" means for a SUCCESS task: its createdTime as version floor, its publish count.

    Without ``intervals`` the task's own ``granularitySpec.intervals`` are used (read from its payload).
    """
    status = yield from call(ep.status(task_id), ep.parse_status)
    if status.state != SUCCESS:
        raise DruidError(f"handoff is only defined for a SUCCESS task; {task_id} is {status.phase}")
    report = yield from call(ep.reports(task_id), ep.parse_reports)
    payload = ((report or {}).get("ingestionStatsAndErrors") or {}).get("payload") or {}
    published = payload.get("segmentsPublished")
    if not intervals:
        task = yield from call(ep.task_payload(task_id), ep.parse_task_payload)
        granularity = ((task.get("spec") or {}).get("dataSchema") or {}).get("granularitySpec") or {}
        intervals = [str(i) for i in granularity.get("intervals") or []]
        if not intervals:
            raise DruidError(
                f"cannot check handoff of {task_id}: neither the caller nor the task's spec names intervals"
            )
    return HandoffTarget(
        task_id=task_id,
        datasource=datasource or status.datasource or "",
        intervals=tuple(intervals),
        min_version=status.created_time or "1970-01-01T00:00:00.000Z",
        append=append,
        segments_published=int(published) if isinstance(published, int) else None,
    )


def check_handoff(target: HandoffTarget) -> Operation[HandoffResult]:
    """One look: metadata (fresh, interval-scoped) + served inventory over this task's span."""
    used = yield from call(ep.used_segments(target.datasource, list(target.intervals)), ep.parse_used_segments)
    mine, superseded = select_task_segments(target, used)
    if not mine:
        return evaluate(target, mine, superseded, set())
    span = span_of(mine)
    served = yield from call(ep.served_segments(target.datasource, span), ep.parse_served_segments)
    never: set[str] = set()
    missing = [s for s in mine if s.segment_id not in served]
    if missing:
        # handoffComplete is true for an unserved segment only when its rule has no replicas (we already
        # excluded newer versions). Re-read the inventory after it to rule out a load in between.
        probe = missing[0]
        if (yield from call(ep.handoff_complete(target.datasource, probe), ep.parse_handoff_complete)):
            served = yield from call(ep.served_segments(target.datasource, span), ep.parse_served_segments)
            if probe.segment_id not in served:
                never = {s.segment_id for s in missing if s.interval == probe.interval}
    result = evaluate(target, mine, superseded, served, never)
    if result.state != "loaded":
        return result
    try:
        candidates = yield from call(ep.broker_candidates(target.datasource, [span]), ep.parse_broker_candidates)
    except DruidNotFoundError:  # a Broker without ClientInfoResource: the Coordinator's word is all we have
        return replace(result, detail=result.detail + " (Broker view not available: not confirmed there)")
    unseen, stale = broker_lag(mine, candidates)
    if unseen or stale:
        return replace(
            result,
            state="pending",
            detail=f"served, but the Broker does not query {unseen} of them yet"
            + (f" and still reads another version in {stale} chunk(s)" if stale else ""),
        )
    return replace(result, detail=result.detail + "; the Broker queries this version")


def wait_for_handoff(
    target: HandoffTarget,
    timeout: float,
    schedule: PollSchedule | None = None,
    on_poll: Callable[[HandoffResult], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_never: str = "fail",
) -> Operation[HandoffResult]:
    """Poll :func:`check_handoff` until done, or timeout.

    ``never`` (zero-replica or drop rules) raises HandoffNeverError with ``on_never="fail"`` and is
    returned with ``on_never="pass"`` (data kept only in deep storage is a valid setup for some tiers).
    """
    if on_never not in ("fail", "pass"):
        raise ValueError(f"on_never must be 'fail' or 'pass', not {on_never!r}")
    schedule = schedule or PollSchedule()
    deadline = clock() + timeout
    polls = 0
    while True:
        result = yield from check_handoff(target)
        if result.state == "never" and on_never == "fail":
            raise HandoffNeverError(
                f"segments of Druid task {target.task_id} will never load: {result.detail} "
                f"({', '.join(result.never[:3])}{'...' if len(result.never) > 3 else ''}); "
                "fix the datasource's load rules, or pass on_never='pass' to accept deep-storage-only data"
            )
        if result.done or result.state == "never":
            return result
        if on_poll is not None:
            on_poll(result)
        remaining = deadline - clock()
        if remaining <= 0:
            raise DruidWaitTimeoutError(
                f"segments of Druid task {target.task_id} not loaded after {timeout:.0f}s: {result.detail}"
            )
        polls += 1
        yield Sleep(min(schedule.delay(polls), remaining))
