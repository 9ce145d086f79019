"""Multi-step operations, written once as generators that both clients drive.

Each yields :class:`~.http.Request` (answered with a Response after the shared retry/redirect loop) and
:class:`~.exchange.Sleep`, and returns a model. Errors from a request are thrown back into the
generator at its ``yield``, so an operation can handle the ones it expects (404 unknown task, a refused
bulk call) and let the rest propagate.
"""

from __future__ import annotations

from dataclasses import replace

from druid_ingest.api import (
    FAILED,
    ReportSummary,
    TaskStatus,
    parse_report,
    task_failed_error,
)
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import (
    DruidAuthError,
    DruidError,
    DruidNotFoundError,
    DruidTaskFailedError,
    DruidUsageError,
    DruidValidationError,
    DuplicateTaskIdError,
    UnknownTaskError,
)
from druid_ingest.ops._evidence import AfterFailedPublish, next_attempt_line
from druid_ingest.ops._input_probe import (
    LOOK_ROWS,
    empty_input_error,
    outside_error,
    probe_line,
    probe_refused,
    probe_request,
    wants_probe,
)
from druid_ingest.ops._nothing_to_compact import failed_for_want_of_segments
from druid_ingest.ops._outcomes import SubmitOutcome
from druid_ingest.ops._shared_reads import listed_ceiling
from druid_ingest.ops.gate.verdict import version_key
from druid_ingest.planning import Plan, attempt_id
from druid_ingest.wire import Operation, Sleep, call

__all__ = [
    "bulk_status",
    "ensure_submitted",
    "failure",
    "lock_ceiling",
    "observe_task",
    "probe_input",
    "report_summary",
    "status_or_none",
]


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


def ensure_submitted(
    plan: Plan, max_attempts: int = 20, *, allow_empty: bool = False,
    after_failed_publish: AfterFailedPublish = "fail",
) -> Operation[SubmitOutcome]:
    """Make sure exactly one live-or-succeeded task exists for this work, submitting only if needed.

    All attempt ids of the chain are looked up at once (one bulk status call; per-id GETs where it is refused) and
    the *highest* attempt Druid still knows decides: RUNNING/SUCCESS is adopted (never resubmitted), FAILED leads to
    the next attempt id, none known submits attempt 0. Druid's task-metadata cleanup (``druid.indexer.logs.kill.*``)
    forgets the oldest tasks first, so attempt 0 can be gone while ``_r1`` SUCCEEDED: stopping at the first unknown
    id would submit attempt 0 again (druid-contract §attempts). A duplicate-id 400 (a racing submitter, or our own
    retried POST that Druid had accepted) is resolved by reading that task's status, never assumed.
    Before the first submit POST of a native ``dropExisting`` replace its input is probed (:func:`probe_input`,
    unless ``allow_empty``): an empty input raises DruidEmptyInputError and nothing is submitted.
    Before the next attempt after a FAILED one, that attempt's report is read (``_evidence``): an append whose
    failed attempt may have published raises DruidMayHavePublishedError unless ``after_failed_publish="resubmit"``.
    """
    if not plan.runs_task:
        raise DruidUsageError(f"{plan.kind} {plan.base_task_id} is not a Druid task: run it with drop(), not as a task")
    base_id = plan.base_task_id
    ids = [attempt_id(base_id, attempt) for attempt in range(max_attempts)]
    known = yield from bulk_status(ids)
    latest = max((attempt for attempt, task_id in enumerate(ids) if task_id in known), default=None)
    if latest is not None and (known[ids[latest]].state != FAILED
                               or failed_for_want_of_segments(plan, known[ids[latest]])):
        # a compaction Druid failed for want of segments is adopted too: another attempt would fail the same way
        return SubmitOutcome(ids[latest], "adopted", latest, known[ids[latest]].state, base_id)
    previous: str | None = None
    failed = known[ids[latest]] if latest is not None else None
    probed: str | None = None
    for attempt in range(0 if latest is None else latest + 1, max_attempts):
        task_id = ids[attempt]
        if failed is not None:  # read what the FAILED attempt left before its successor (may raise)
            report = yield from report_summary(failed.task_id)
            previous = next_attempt_line(plan, failed, task_id, report, after_failed_publish)
        if probed is None and wants_probe(plan, allow_empty):
            probed = yield from probe_input(plan)
        try:
            yield from _submit(plan, task_id)
            return SubmitOutcome(task_id, "submitted", attempt, "RUNNING", base_id, probed, previous)
        except DuplicateTaskIdError:
            status = yield from _status_after_duplicate(task_id)
        if status.state != FAILED:
            return SubmitOutcome(task_id, "adopted", attempt, status.state, base_id)
        failed = status  # a racing submitter's attempt FAILED: its evidence decides the next one
    raise DruidError(
        f"{max_attempts} attempts of {base_id} all FAILED; not submitting again. Inspect the failures, "
        "then pass a new idempotency key to start a fresh series"
    )


def probe_input(plan: Plan) -> Operation[str]:
    """Ask the Overlord's sampler for the first rows of ``plan``'s input (one POST, druid-contract §sampler).

    0 rows read, or rows all outside the plan's intervals, raise DruidEmptyInputError. A sampler that cannot be
    asked (403 without STATE WRITE, 401, 404/405, 400 for an input it cannot read, 5xx after the usual retries, a
    timeout, an answer it cannot parse) fails closed: DruidInputProbeRefusedError (fatal) or DruidInputProbeError
    (a later try may pass), nothing submitted; ``allow_empty=True`` is the opt-out (no probe).
    """
    request = probe_request(plan)
    if request is None:
        raise probe_refused(plan, None)
    try:
        sample = yield from call(request, ep.parse_sampler)
    except DruidError as exc:
        raise probe_refused(plan, exc) from exc
    outside = outside_error(plan, sample)  # a sampler that ignored the interval filter
    if outside is not None:
        raise outside
    if sample.rows_read == 0:
        # no row of the intervals: one more look without the filter names what the input holds instead
        whole = probe_request(plan, within=False, rows=LOOK_ROWS)
        try:
            seen = (yield from call(whole, ep.parse_sampler)) if whole is not None else None
        except DruidError:
            seen = None
        outside = outside_error(plan, seen) if seen is not None else None
        raise outside if outside is not None else empty_input_error(plan, sample)
    return probe_line(sample)


def _submit(plan: Plan, task_id: str) -> Operation[str]:
    """The plan's own request for attempt ``task_id`` (a native spec with its pinned id, an MSQ statement with the
    ``sqlQueryId`` that names it, ...)."""
    return (yield from call(plan.submit_request(task_id), ep.parse_started))


def _status_after_duplicate(task_id: str) -> Operation[TaskStatus]:
    for _ in range(5):
        status = yield from status_or_none(task_id)
        if status is not None:
            return status
        yield Sleep(0.5)
    raise DruidError(f"Druid says task {task_id} already exists but will not report its status")


def lock_ceiling(status: TaskStatus) -> Operation[str | None]:
    """An instant at which ``status``'s task holds its time-chunk lock (see ``ops/gate/verdict.py``), or None.

    The exact lock version from ``POST /activeLocks`` (STATE WRITE); when that is refused (403, or 404/405 on an
    older Druid or a proxy), the ``queueInsertionTime`` of the task in ``GET /tasks?state=<runner state>``, which
    the runner stamps just after the lock is granted (valid for tasks whose spec names intervals, as every spec
    this package submits does). Optional: any error gives None, never a failed wait.
    """
    group = status.group_id or status.task_id
    datasource = status.datasource
    if not datasource:
        return None
    try:
        locks = yield from call(ep.active_locks(datasource), ep.parse_active_locks)
        mine = [lock.version for lock in locks if lock.group_id == group and not lock.revoked]
        return max(mine, key=version_key) if mine else None
    except (DruidAuthError, DruidNotFoundError, DruidValidationError):
        pass
    except DruidError:
        return None
    return (yield from listed_ceiling(status))


def observe_task(task_id: str, ceiling: str | None = None) -> Operation[TaskStatus]:
    """``/status``, plus the lock ceiling the first time the task is seen in the runner (lock held)."""
    status = yield from call(ep.status(task_id), ep.parse_status)
    if ceiling is None and not status.is_terminal and status.runner_state in ("PENDING", "RUNNING"):
        ceiling = yield from lock_ceiling(status)
    return replace(status, version_ceiling=ceiling) if ceiling else status


def report_summary(task_id: str) -> Operation[ReportSummary | None]:
    """The task's parsed report, or None when it has none or it cannot be read (after the usual retries)."""
    try:
        body = yield from call(ep.reports(task_id), ep.parse_reports)
    except DruidError:
        return None
    return parse_report(body)


def failure(status: TaskStatus) -> Operation[DruidTaskFailedError]:
    """The DruidTaskFailedError for a FAILED task, with its report when Druid has one."""
    return task_failed_error(status, (yield from report_summary(status.task_id)))
