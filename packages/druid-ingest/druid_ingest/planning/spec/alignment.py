"""Pre-flight: a replace whose intervals are not on ``segmentGranularity`` bucket boundaries loses data.

A native batch replace (anything but ``appendToExisting: true``) locks and publishes a new version of every whole
bucket its intervals touch (``UniformGranularitySpec`` expands each interval to its buckets), while the run's input
only holds rows for the interval. A daily DAG in Europe/Berlin with DAY segments (UTC days) therefore overwrites,
each run, the hours of the neighbouring UTC days that the previous run wrote: every task green, hours missing.
This module names the buckets and the hours that would be lost, and the fixes (druid-contract §alignment).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from druid_ingest.errors import SpecProblem
from druid_ingest.planning.spec._shape import as_task_shape
from druid_ingest.planning.spec.buckets import Buckets, Unreadable, buckets_of
from druid_ingest.planning.spec.intervals import parse_interval
from druid_ingest.planning.spec.jackson import truthy

__all__ = ["AIRFLOW_TERMS", "OPT_IN", "ScheduleTerms", "alignment_findings", "finest_aligning", "fmt_span",
           "fmt_window", "lost_text"]

#: the keyword that accepts the loss (the CLI spells it ``--allow-unaligned``)
OPT_IN = "allow_unaligned"
_PATH = "spec.dataSchema.granularitySpec"
_MAX_BUCKETS = 100_000
#: coarsest first: the suggestion is the coarsest standard granularity that both ends fall on
_STANDARD_ORDER = ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "EIGHT_HOUR", "SIX_HOUR", "HOUR", "THIRTY_MINUTE",
                   "FIFTEEN_MINUTE", "TEN_MINUTE", "FIVE_MINUTE", "MINUTE", "SECOND")
Span = tuple[datetime, datetime]


@dataclass(frozen=True)
class ScheduleTerms:
    """How a face names its schedule in the fixes: the rule is the core's, only these words differ per face."""

    #: fix (1): a schedule whose runs start and end on UTC bucket boundaries
    utc_schedule: str = "a UTC timetable, so runs start and end on UTC bucket boundaries"
    #: fix (3): whose time zone the period granularity should count in, and the value to write
    zone_owner: str = "the DAG's time zone"
    zone: str = "<the DAG's zone, e.g. Europe/Berlin>"
    #: fix (4): how this face accepts the loss
    opt_in: str = f"{OPT_IN}=True (CLI: --allow-unaligned)"


#: the Airflow operators' and the CLI's words (the default)
AIRFLOW_TERMS = ScheduleTerms()


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _clock(moment: datetime) -> str:
    """The time of day with a ``Z``: callers pass UTC (:func:`_utc`), so the suffix is true."""
    if moment.microsecond:
        return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return moment.strftime("%H:%M:%S" if moment.second else "%H:%M") + "Z"


def _utc(moment: datetime) -> datetime:
    """An interval written with an offset (``-05:00``) is printed in UTC, labelled ``Z``: never its wall clock."""
    return moment.astimezone(timezone.utc)


def _instant(moment: datetime) -> str:
    moment = _utc(moment)
    return f"{moment:%Y-%m-%d}T{_clock(moment)}"


def fmt_window(start: datetime, end: datetime) -> str:
    """A bucket: ``2026-10-23/2026-10-24`` when both ends are UTC midnights, else full UTC instants."""
    start, end = _utc(start), _utc(end)
    midnight = all(m.hour == m.minute == m.second == m.microsecond == 0 for m in (start, end))
    return f"{start:%Y-%m-%d}/{end:%Y-%m-%d}" if midnight else f"{_instant(start)}/{_instant(end)}"


def fmt_span(start: datetime, end: datetime) -> str:
    """A lost stretch: ``2026-10-23T00:00Z to 22:00Z``, ``2026-10-24T22:00Z to 24:00Z`` (same UTC day), else full."""
    start, end = _utc(start), _utc(end)
    if end.date() == start.date():
        return f"{_instant(start)} to {_clock(end)}"
    if end == datetime.combine(start.date() + timedelta(days=1), datetime.min.time(), tzinfo=end.tzinfo):
        return f"{_instant(start)} to 24:00Z"
    return f"{_instant(start)} to {_instant(end)}"


def _amount(total: timedelta) -> str:
    if total % timedelta(seconds=1):
        return f"{total // timedelta(milliseconds=1)} ms"
    seconds = int(total.total_seconds())
    if seconds % 3600 == 0:
        hours = seconds // 3600
        text = f"{hours} hour{'s' if hours != 1 else ''}"
        return text + (f" ({hours // 24} days)" if hours >= 48 and hours % 24 == 0 else "")
    if seconds % 60 == 0:
        minutes = seconds // 60
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def lost_text(spans: list[Span]) -> str:
    """``22 hours: 2026-10-23T00:00Z to 22:00Z and ...``."""
    total = sum((end - start for start, end in spans), timedelta())
    parts = [fmt_span(start, end) for start, end in spans]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{_amount(total)}: {listed}"


def _windows_text(windows: list[Span]) -> str:
    parts = [fmt_window(start, end) for start, end in windows]
    if len(parts) > 4:
        return f"{len(parts)} buckets, {parts[0]}, {parts[1]} ... {parts[-1]}"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _union(spans: Iterable[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _minus(span: Span, covered: list[Span]) -> list[Span]:
    """The parts of ``span`` outside every ``covered`` span."""
    pieces = [span]
    for c_start, c_end in covered:
        pieces = [part for start, end in pieces
                  for part in ((start, min(end, c_start)), (max(start, c_end), end)) if part[0] < part[1]]
    return pieces


def _windows(buckets: Buckets, start: datetime, end: datetime) -> list[Span] | None:
    """The buckets ``start/end`` touches (``Granularity.getIterable``); None if absurdly many."""
    windows: list[Span] = []
    left = buckets.floor(start)
    while left < end:
        right = buckets.next(left)
        windows.append((left, right))
        left = right
        if len(windows) > _MAX_BUCKETS:
            return None
    return windows


def finest_aligning(start: datetime, end: datetime) -> str | None:
    """The coarsest standard (UTC) granularity both ends fall on: what would divide the run's interval."""
    for name in _STANDARD_ORDER:
        buckets = buckets_of(name)
        if isinstance(buckets, Buckets) and buckets.aligned(start) and buckets.aligned(end):
            return name
    return None


def _fixes(buckets: Buckets, start: datetime, end: datetime, terms: ScheduleTerms) -> str:
    finer = finest_aligning(start, end)
    fixed = buckets.unit in ("hours", "minutes", "seconds")
    period = f"P{'T' if fixed else ''}{buckets.count}{buckets.unit[0].upper()}"
    return (
        f"(1) {terms.utc_schedule}; "
        f"(2) a segmentGranularity that divides the run's interval, e.g. {finer or 'SECOND'!r}; "
        f'(3) a period granularity in {terms.zone_owner}, {{"type": "period", "period": "{period}", '
        f'"timeZone": "{terms.zone}"}}; '
        f"or (4) {terms.opt_in} to accept the loss"
    )


def alignment_findings(
    spec: Any, terms: ScheduleTerms = AIRFLOW_TERMS
) -> tuple[list[SpecProblem], list[SpecProblem]]:
    """(refusals, notes) for a validated task spec: a refusal per interval of a replace that would overwrite
    hours outside the spec's intervals; a note when the granularity is one this check cannot evaluate.
    Appends and specs without intervals (Druid buckets what the data holds) are never refused. ``terms``: the
    face's words for its schedule in the fixes."""
    spec = as_task_shape(spec)
    if truthy(_dig(spec, "spec", "ioConfig", "appendToExisting")):  # read as Druid reads it: "true" appends
        return [], []
    gs = _dig(spec, "spec", "dataSchema", "granularitySpec")
    if not isinstance(gs, dict) or str(gs.get("type", "uniform")).lower() != "uniform":
        return [], []
    raw = gs.get("intervals")
    if not isinstance(raw, list) or not raw:
        return [], []
    try:
        spans = [parse_interval(text) for text in raw]
    except ValueError:
        return [], []  # validate_spec has reported it
    granularity = gs.get("segmentGranularity")
    buckets = buckets_of(granularity)
    if isinstance(buckets, Unreadable):
        note = SpecProblem(
            f"{_PATH}.segmentGranularity",
            f"cannot check that the intervals are aligned to it ({buckets.reason}); a replace overwrites every whole "
            "bucket its intervals touch, so make sure they start and end on bucket boundaries",
            value=granularity,
        )
        return [], [note]
    if not isinstance(buckets, Buckets):
        # NONE: millisecond buckets are always aligned. ALL: each interval is its own bucket
        # (AllGranularity.getIterable returns the input interval), so a replace locks and overwrites exactly its
        # intervals (Druid 33: tests/e2e/test_all_time_real.py); only rows bucketed without intervals land in eternity
        return [], []
    covered = _union(spans)
    problems = []
    for i, (text, (start, end)) in enumerate(zip(raw, spans, strict=True)):
        if buckets.aligned(start) and buckets.aligned(end):
            continue
        first, last = buckets.floor(start), buckets.floor(end)
        last = end if last == end else buckets.next(last)
        lost = [part for edge in ((first, start), (end, last)) if edge[0] < edge[1] for part in _minus(edge, covered)]
        if not lost:
            continue
        windows = _windows(buckets, start, end)
        touched = _windows_text(windows) if windows else f"{fmt_window(first, last)} (over {_MAX_BUCKETS} buckets)"
        name = "DAY (Druid's default)" if granularity is None else granularity if isinstance(
            granularity, str) else buckets.label
        problems.append(SpecProblem(
            f"{_PATH}.intervals[{i}]",
            f"is not aligned to segmentGranularity {name}"
            f"{' (UTC buckets)' if buckets.label.isupper() else ''}: a replace locks and overwrites every whole "
            f"bucket it touches, {touched}, with this run's rows only, so any rows stored for the "
            f"hours outside the interval would be lost, {lost_text(lost)}",
            value=text,
            valid="fixes: " + _fixes(buckets, start, end, terms),
        ))
    return problems, []
