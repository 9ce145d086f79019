"""Summaries of ``GET /druid/indexer/v1/task/{id}/reports`` for task logs, trigger events and XCom.

The report is the only place Druid says *why* a task failed and how many rows it dropped, but its shape varies
(parallel vs sequential ``rowStats``, live reports with moving averages, several ``unparseableEvents`` forms
across versions). Parsing is deliberately lenient: an odd shape degrades to missing fields, never an exception,
because a summary must not mask the failure it is describing.
"""

from __future__ import annotations

import re
from typing import Any

from druid_ingest.api._jsonvalues import as_float, as_int
from druid_ingest.api._models import TaskStatus
from druid_ingest.api._msq_reports import parse_msq_report
from druid_ingest.api._report_summary import BUILD_SEGMENTS, COUNTERS, ReportSummary
from druid_ingest.errors import DruidTaskFailedError

__all__ = [
    "MAX_ERROR_CHARS",
    "MAX_FAILURE_CHARS",
    "bounded",
    "parse_report",
    "task_failed_error",
]

_SAMPLE_INPUT_CHARS = 300
MAX_FAILURE_CHARS = 8000
MAX_ERROR_CHARS = 5000
_DRUID_CUT = re.compile(r"\.\.\.\d+ characters omitted\.\.\.")


def bounded(text: str, limit: int) -> str:
    """``text`` cut in the middle to at most ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    half = (limit - 40) // 2
    return f"{text[:half]} ...[{len(text) - 2 * half} characters left out]... {text[-half:]}"


def task_failed_error(status: TaskStatus, summary: ReportSummary | None) -> DruidTaskFailedError:
    """The one failure of a FAILED Druid task: the full errorMsg, row stats, the first unparseable events.

    Druid cuts the status ``errorMsg`` at 1024 characters; the report has the whole text, so it wins when
    present. Bounded (about 8 KB) so it fits an alert, a trigger event and an Airflow exception.
    """
    full = summary.error_msg if summary is not None and summary.error_msg else None
    error = full or status.error_msg
    note = ""
    if not full and error and _DRUID_CUT.search(error):
        note = " (Druid cut this message and no task report holds the full text)"
    head = f"Druid task {status.task_id} FAILED: {bounded(error, MAX_ERROR_CHARS) if error else 'no errorMsg'}{note}"
    details = summary.format(include_error=False) if summary is not None else "(no task report)"
    text = bounded(f"{head}\n{details}", MAX_FAILURE_CHARS)
    return DruidTaskFailedError(status.task_id, error, text)




_as_int = as_int  # NaN/Infinity (Python's json reads them) and booleans read as absent
_as_float = as_float


def _counters(raw: Any) -> dict[str, int] | None:
    """The five counters from one phase dict (missing ones are 0), or None if it has none of them."""
    if not isinstance(raw, dict) or not any(name in raw for name in COUNTERS):
        return None
    return {name: _as_int(raw.get(name)) or 0 for name in COUNTERS}


def _phases(raw: Any) -> dict[str, dict[str, int]]:
    """phase -> counters; a dict that holds counters directly is treated as buildSegments."""
    if not isinstance(raw, dict):
        return {}
    direct = _counters(raw)
    if direct is not None:
        return {BUILD_SEGMENTS: direct}
    phases = {}
    for phase, value in raw.items():
        counters = _counters(value)
        if counters is not None:
            phases[str(phase)] = counters
    return phases


def _row_stats(raw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, dict[str, float]]]]:
    """Normalize parallel ``{totals: {phase: ..}}``, sequential ``{phase: ..}`` and live reports."""
    if not isinstance(raw, dict):
        return {}, {}
    stats = _phases(raw["totals"]) if "totals" in raw else _phases(raw)
    averages: dict[str, dict[str, dict[str, float]]] = {}
    moving = raw.get("movingAverages")
    if isinstance(moving, dict):
        for phase, windows in moving.items():
            if not isinstance(windows, dict):
                continue
            for window, counters in windows.items():
                if isinstance(counters, dict):
                    clean = {k: f for k, v in counters.items() if (f := _as_float(v)) is not None}
                    averages.setdefault(str(phase), {})[str(window)] = clean
    return stats, averages


def _describe_event(phase: str | None, event: Any) -> str:
    """One unparseable event as text: strings as-is; objects by details/message plus the input."""
    prefix = f"{phase}: " if phase else ""
    if isinstance(event, dict):
        details = event.get("details")
        if isinstance(details, list):
            message = "; ".join(str(d) for d in details)
        else:
            message = str(details or event.get("message") or event.get("errorType") or "")
        raw_input = event.get("input")
        if raw_input is not None:
            raw_input = str(raw_input)
            if len(raw_input) > _SAMPLE_INPUT_CHARS:
                raw_input = raw_input[:_SAMPLE_INPUT_CHARS] + "..."
            message = f"{message} | input: {raw_input}" if message else f"input: {raw_input}"
        return prefix + (message or str(event))
    return prefix + str(event)


def _unparseable(raw: Any, limit: int) -> tuple[list[str], int]:
    """The first ``limit`` events as text and the total count, for a dict of phase -> list or a bare list."""
    if isinstance(raw, list):
        groups: list[tuple[str | None, Any]] = [(None, raw)]
    elif isinstance(raw, dict):
        groups = list(raw.items())
    else:
        return [], 0
    samples: list[str] = []
    total = 0
    for phase, events in groups:
        events_list = events if isinstance(events, list) else [events] if events else []
        total += len(events_list)
        for event in events_list:
            if len(samples) < limit:
                samples.append(_describe_event(phase, event))
    return samples, total


def _records_processed(raw: Any) -> int | None:
    """``recordsProcessed`` is a number in some versions and a map (e.g. per partition) in others."""
    if isinstance(raw, dict):
        values = [n for v in raw.values() if (n := _as_int(v)) is not None]
        return sum(values) if values else None
    return _as_int(raw)


def parse_report(body: dict[str, Any] | None, *, max_samples: int = 5) -> ReportSummary | None:
    """Summarize a reports response body; None when there is nothing to summarize. Never raises."""
    if not isinstance(body, dict) or not body:
        return None
    if "multiStageQuery" in body:  # an MSQ controller's report (msq_reports.py)
        return parse_msq_report(body, max_samples=max_samples)
    section = body.get("ingestionStatsAndErrors")
    if isinstance(section, dict):
        payload = section.get("payload")
        task_id = section.get("taskId")
    else:  # tolerate a bare payload
        payload, task_id = body, body.get("taskId")
    if not isinstance(payload, dict):
        payload = {}
    if not payload and task_id is None:
        return None
    stats, averages = _row_stats(payload.get("rowStats"))
    samples, total = _unparseable(payload.get("unparseableEvents"), max(0, max_samples))
    state, error = payload.get("ingestionState"), payload.get("errorMsg")
    confirmed = payload.get("segmentAvailabilityConfirmed")
    return ReportSummary(
        task_id=str(task_id) if task_id is not None else None,
        ingestion_state=str(state) if state is not None else None,
        row_stats=stats,
        moving_averages=averages,
        error_msg=str(error) if error else None,
        unparseable_samples=samples,
        unparseable_total=total,
        segment_availability_confirmed=confirmed if isinstance(confirmed, bool) else None,
        segment_availability_wait_ms=_as_int(payload.get("segmentAvailabilityWaitTimeMs")),
        segments_published=_as_int(payload.get("segmentsPublished")),
        segments_read=_as_int(payload.get("segmentsRead")),
        records_processed=_records_processed(payload.get("recordsProcessed")),
    )
