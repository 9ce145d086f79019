"""A small ISO-8601 parser for Druid intervals, built on ``datetime.fromisoformat``.

Why not a dependency: the core stays dependency-free, and Druid's intervals only need instants
(``2026-01-01``, ``2026-01-01T00``, ``...Z``), periods (``P1D``, ``PT1H``, ``P1W``, ``P1M``) and the three
interval forms start/end, start/period, period/end. Python 3.10's ``fromisoformat`` rejects ``Z``, hour-only
times and odd fraction lengths, so those are normalized first. Naive instants are taken as UTC (Druid's default).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

__all__ = ["ETERNITY_END", "ETERNITY_START", "Period", "parse_duration", "parse_instant", "parse_interval"]

#: Joda's first and last instants as Druid writes them (``Intervals.ETERNITY``: ``JodaUtils.MIN_INSTANT`` and
#: ``MAX_INSTANT``), the bounds of an all-time segment (MSQ ``PARTITIONED BY ALL TIME``; ``AllGranularity`` buckets
#: every row there). ``datetime`` cannot hold them: they read as its own first and last instants, which keep their
#: order against every instant Druid writes from year 1 (0001-01-01T00:00:00.000Z itself aliases the start) to
#: 9999 (``timeline.format_instant`` writes them back).
ETERNITY_START = "-146136543-09-08T08:23:32.096Z"
ETERNITY_END = "146140482-04-24T15:36:27.903Z"
_ETERNITY = {ETERNITY_START: datetime.min.replace(tzinfo=timezone.utc),
             ETERNITY_END: datetime.max.replace(tzinfo=timezone.utc)}

_DURATION = re.compile(
    r"^P(?!$)(?:(?P<years>\d+)Y)?(?:(?P<months>\d+)M)?(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?=\d)(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:[.,]\d+)?)S)?)?$"
)
_YEAR_MONTH = re.compile(r"^(\d{4})(?:-(\d{2}))?$")
_HOUR_ONLY = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ]\d{2})(?=$|[+-])")
_FRACTION = re.compile(r"([.,])(\d+)")
_OFFSET = re.compile(r"([+-])(\d{2}):?(\d{2})?$")


@dataclass(frozen=True)
class Period:
    """An ISO-8601 duration; months and years are calendar units, so it is applied, not converted."""

    years: int = 0
    months: int = 0
    weeks: int = 0
    days: int = 0
    hours: int = 0
    minutes: int = 0
    seconds: float = 0.0

    def is_zero(self) -> bool:
        return not any((self.years, self.months, self.weeks, self.days, self.hours, self.minutes, self.seconds))

    def add_to(self, when: datetime, sign: int = 1) -> datetime:
        """``when`` shifted by this period (``sign=-1`` subtracts), clamping the day like Joda does."""
        total_months = when.month - 1 + sign * (self.years * 12 + self.months)
        year, month0 = divmod(total_months, 12)
        year += when.year
        if not 1 <= year <= 9999:
            raise OverflowError(f"year {year} is outside 1-9999")
        day = min(when.day, calendar.monthrange(year, month0 + 1)[1])
        shifted = when.replace(year=year, month=month0 + 1, day=day)
        delta = timedelta(
            weeks=self.weeks, days=self.days, hours=self.hours, minutes=self.minutes, seconds=self.seconds
        )
        return shifted + sign * delta


def parse_duration(text: str) -> Period:
    """Parse ``PnYnMnWnDTnHnMnS`` (any subset, at least one part); raise ValueError otherwise."""
    match = _DURATION.match(text.strip().upper()) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"not an ISO-8601 period: {text!r} (expected e.g. P1D, PT1H, P1W, P1M, P1Y)")
    parts = match.groupdict()
    seconds = float((parts.pop("seconds") or "0").replace(",", "."))
    return Period(seconds=seconds, **{k: int(v or 0) for k, v in parts.items()})


def parse_instant(text: str) -> datetime:
    """Parse an ISO-8601 date or date-time into an aware datetime (UTC when no offset is given)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"not an ISO-8601 instant: {text!r}")
    raw = text.strip()
    if raw in _ETERNITY:
        return _ETERNITY[raw]
    year_month = _YEAR_MONTH.match(raw)
    if year_month:
        return datetime(int(year_month.group(1)), int(year_month.group(2) or 1), 1, tzinfo=timezone.utc)
    norm = raw[:-1] + "+00:00" if raw[-1] in "Zz" else raw
    norm = _HOUR_ONLY.sub(r"\1:00", norm)
    norm = _FRACTION.sub(lambda m: "." + (m.group(2) + "000000")[:6], norm)
    norm = _OFFSET.sub(lambda m: f"{m.group(1)}{m.group(2)}:{m.group(3) or '00'}", norm) if "T" in norm else norm
    try:
        parsed = datetime.fromisoformat(norm)
    except ValueError:
        raise ValueError(f"not an ISO-8601 instant: {text!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def parse_interval(text: str) -> tuple[datetime, datetime]:
    """Parse ``start/end``, ``start/period`` or ``period/end``; raise ValueError if malformed or end <= start."""
    if not isinstance(text, str) or text.count("/") != 1:
        raise ValueError(f"not an ISO-8601 interval: {text!r} (expected <start>/<end>)")
    left, right = (part.strip() for part in text.split("/"))
    left_is_period = left.upper().startswith("P")
    right_is_period = right.upper().startswith("P")
    if left_is_period and right_is_period:
        raise ValueError(f"interval {text!r} has two periods; one side must be an instant")
    try:
        if left_is_period:
            end = parse_instant(right)
            start = parse_duration(left).add_to(end, sign=-1)
        elif right_is_period:
            start = parse_instant(left)
            end = parse_duration(right).add_to(start)
        else:
            start, end = parse_instant(left), parse_instant(right)
    except OverflowError:  # e.g. 2026-01-01/P9999999999D: past year 9999, or more seconds than a timedelta holds
        raise ValueError(f"interval {text!r} reaches beyond the years 1-9999") from None
    if end <= start:
        raise ValueError(f"interval {text!r} ends at or before it starts")
    return start, end
