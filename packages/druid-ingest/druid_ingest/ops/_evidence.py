"""What a FAILED attempt left, read before the next attempt id is submitted (druid-contract §attempts).

Why: Druid can mark a task FAILED after its publish committed. A native batch task publishes in one metadata
transaction (``SegmentTransactionalInsertAction``) and only then reports SUCCESS; when its worker dies between the
two, the Overlord marks the task FAILED ("This task disappeared on the worker where it was assigned",
``HttpRemoteTaskRunner`` / ``TaskQueue``) while its segments are used and served. For a replace the next attempt
publishes a newer version over the same intervals, so nothing doubles; for an append the next attempt adds the rows
a second time (seen on Druid 33: 2000 rows sent, 4000 in SQL). These pure functions decide from the attempt's
report; ``operations.ensure_submitted`` reads it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Literal

from druid_ingest.api import ReportSummary, TaskStatus
from druid_ingest.errors import DruidMayHavePublishedError, SpecProblem, SpecValidationError
from druid_ingest.planning import Plan
from druid_ingest.planning.spec.intervals import parse_interval

__all__ = ["AFTER_FAILED_PUBLISH", "AfterFailedPublish", "check_after_failed_publish", "count_sql",
           "next_attempt_line", "published_nothing"]

#: ``fail`` (the default): an append whose failed attempt may have published is not run again on its own;
#: ``resubmit``: run it again as the next attempt anyway (the user has checked the interval holds none of its rows)
AfterFailedPublish = Literal["fail", "resubmit"]
AFTER_FAILED_PUBLISH: tuple[AfterFailedPublish, ...] = ("fail", "resubmit")
#: Druid's ``IngestionState`` once the publish committed (``IndexTask``/``ParallelIndexSupervisorTask``)
_COMPLETED = "COMPLETED"


def check_after_failed_publish(value: object) -> AfterFailedPublish:
    """The option as given, or a SpecValidationError naming it (before any HTTP call)."""
    for allowed in AFTER_FAILED_PUBLISH:
        if value == allowed:
            return allowed
    raise SpecValidationError([SpecProblem(
        "after_failed_publish", "is not a known choice", value=value,
        valid="'fail' (default: stop an append whose failed attempt may have published) or 'resubmit'")])


def published_nothing(report: ReportSummary | None) -> bool:
    """Whether the attempt's own report proves it published no segment: a report, a state before COMPLETED and no
    segment published. No report (the worker died before writing it) proves nothing: fail closed."""
    return report is not None and report.ingestion_state not in (None, _COMPLETED) and not report.segments_published


def _sql_time(moment: datetime) -> str:
    """Druid SQL's TIMESTAMP literal (UTC, the session zone Druid uses by default) of an instant."""
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def count_sql(plan: Plan) -> str:
    """The Druid SQL that tells how many rows the plan's intervals hold now."""
    where = []
    for text in plan.intervals:
        start, end = parse_interval(text)
        where.append(f"(__time >= TIMESTAMP '{_sql_time(start)}' AND __time < TIMESTAMP '{_sql_time(end)}')")
    clause = f" WHERE {' OR '.join(where)}" if where else ""
    counted = "".join(f', SUM("{name}") AS "sum_{name}"' for name in _count_metrics(plan))
    return f'SELECT COUNT(*) AS "stored_rows"{counted} FROM "{plan.datasource}"{clause}'


def _count_metrics(plan: Plan) -> list[str]:
    """The spec's ``count`` metrics: with rollup, COUNT(*) counts stored rows, their SUM the rows ingested."""
    metrics = (((plan.task_spec or {}).get("spec") or {}).get("dataSchema") or {}).get("metricsSpec") or []
    return [str(m["name"]) for m in metrics
            if isinstance(m, dict) and m.get("type") == "count" and isinstance(m.get("name"), str)
            and m["name"].replace("_", "").isalnum()]


def _evidence(report: ReportSummary | None) -> str:
    if report is None:
        return "Druid has no report for it (its worker may have died before writing one), so it cannot tell"
    parts = [f"state={report.ingestion_state or 'unknown'}"]
    if report.segments_published is not None:
        parts.append(f"segments published={report.segments_published:,}")
    if report.row_stats:
        parts.append(f"rows processed={report.totals()['processed']:,}")
    return "its report says " + ", ".join(parts)


def next_attempt_line(
    plan: Plan,
    failed: TaskStatus,
    next_id: str,
    report: ReportSummary | None,
    after_failed_publish: AfterFailedPublish = "fail",
) -> str:
    """Why ``next_id`` may be submitted after the FAILED attempt ``failed`` (a line for the task log), or raise
    DruidMayHavePublishedError for an append whose failed attempt may have published."""
    what = f"Druid task {failed.task_id} ended FAILED ({failed.error_msg or 'no errorMsg'}); {_evidence(report)}"
    if not plan.append:
        return (f"{what}. A replace publishes a newer version over the same intervals, so whatever the failed "
                f"attempt published is replaced, not doubled: submitting the next attempt {next_id}")
    if published_nothing(report):
        return f"{what}: it published no segment, so the append goes on as the next attempt {next_id}"
    if after_failed_publish == "resubmit":
        return (f"{what}; it may have published. after_failed_publish='resubmit': submitting the next attempt "
                f"{next_id} anyway (its rows are added again if the failed attempt's were)")
    raise DruidMayHavePublishedError(
        f"{what}, and it may have published: Druid can mark a task FAILED after its publish committed (its worker "
        f"died in between). This is an append into {plan.datasource!r}, so running it again as {next_id} could add "
        f"its rows a second time: nothing was submitted. See what the interval holds: {count_sql(plan)}. If the rows "
        "are there, the work is done; if not, run again with a new idempotency key, or with "
        "after_failed_publish='resubmit' to submit the next attempt",
        task_id=failed.task_id, next_id=next_id,
    )
