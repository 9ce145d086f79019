"""Summaries of MSQ controller reports (``{"multiStageQuery": {"payload": {"status", "stages", "counters"}}}``).

Same :class:`~.report_summary.ReportSummary` as native reports, so failures, trigger events and task logs read alike:
``status.status`` is the state, ``status.errorReport.error`` (``errorCode``, ``errorMessage``) the error, the
stage-0 input channel counters the rows read, ``segmentGenerationProgress.rowsPushed`` the rows written, and
``status.warnings`` (e.g. ``CannotParseExternalData``) the unparseable samples. Lenient like ``reports.py``:
an odd shape degrades to missing fields, never an exception.
"""

from __future__ import annotations

from typing import Any

from druid_ingest.api._report_summary import BUILD_SEGMENTS, COUNTERS, ReportSummary

__all__ = ["MSQ_REPORT_KEY", "msq_error_text", "parse_msq_report"]

MSQ_REPORT_KEY = "multiStageQuery"


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _sum(values: Any) -> int:
    """Channel counters are per-partition arrays; older shapes a single number."""
    if isinstance(values, list):
        return sum(_int(v) for v in values)
    return _int(values)


def msq_error_text(report: Any) -> str | None:
    """``<errorCode>: <errorMessage>`` of an MSQErrorReport (``{"taskId", "host", "error": {...}}``)."""
    if not isinstance(report, dict):
        return None
    inner = report.get("error")
    error: dict[str, Any] = inner if isinstance(inner, dict) else report
    code, message = error.get("errorCode"), error.get("errorMessage")
    if not code and not message:
        return None
    where = f" (task {report['taskId']})" if report.get("taskId") else ""
    return f"{code or 'UnknownError'}: {message or ''}{where}".strip()


def _counters(counters: Any) -> tuple[int, int, int | None]:
    """(rows, bytes) stage 0 read (its input channels; an inline source counts only files there, so then what
    stage 0 emitted) and the rows pushed into segments (None if absent)."""
    read = [0, 0]
    emitted = [0, 0]
    pushed: int | None = None
    counted = False
    for stage, workers in _dict(counters).items():
        for per_worker in _dict(workers).values():
            for name, counter in _dict(per_worker).items():
                counter = _dict(counter)
                if str(stage) == "0" and name.startswith("input") and "rows" in counter:
                    counted = True
                    read[0] += _sum(counter.get("rows"))
                    read[1] += _sum(counter.get("bytes"))
                if str(stage) == "0" and name == "output":
                    emitted[0] += _sum(counter.get("rows"))
                    emitted[1] += _sum(counter.get("bytes"))
                if counter.get("type") == "segmentGenerationProgress":
                    pushed = (pushed or 0) + _int(counter.get("rowsPushed"))
    rows, size = read if counted else emitted
    return rows, size, pushed


def parse_msq_report(body: dict[str, Any], *, max_samples: int = 5) -> ReportSummary | None:
    """ReportSummary of a ``multiStageQuery`` report; None when the body has none. Never raises."""
    section = body.get(MSQ_REPORT_KEY)
    if not isinstance(section, dict):
        return None
    payload = _dict(section.get("payload"))
    status = _dict(payload.get("status"))
    rows, size, pushed = _counters(payload.get("counters"))
    warnings = [w for w in status.get("warnings") or [] if isinstance(w, dict)]
    samples = [text for w in warnings[:max_samples] if (text := msq_error_text(w))]
    unparseable = sum(1 for w in warnings if _dict(w.get("error")).get("errorCode") == "CannotParseExternalData")
    stats = dict.fromkeys(COUNTERS, 0)
    stats.update(processed=rows, processedBytes=size, unparseable=unparseable)
    waiter = status.get("segmentLoadWaiterStatus")
    total_segments = _int(waiter.get("totalSegments")) if isinstance(waiter, dict) else None
    state = status.get("status")
    return ReportSummary(
        task_id=str(section.get("taskId")) if section.get("taskId") else None,
        ingestion_state=str(state) if state else None,
        row_stats={BUILD_SEGMENTS: stats} if payload.get("counters") else {},
        error_msg=msq_error_text(status.get("errorReport")),
        unparseable_samples=samples,
        unparseable_total=len(warnings),
        segments_published=total_segments,
        records_processed=pushed,
    )
