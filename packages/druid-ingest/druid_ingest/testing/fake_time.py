"""Time helpers for the fake Druid: ISO instants/intervals as epoch millis, granularity buckets, periods.

Everything is UTC and integer milliseconds, like Joda-Time inside Druid. Eternity (the interval of
``ALL`` granularity) uses Joda's min/max instants, which Python's ``datetime`` cannot represent. A standard period
with a ``timeZone`` is kept as ``<NAME>@<zone>`` (``DAY@Europe/Berlin``) and bucketed on that zone's clock.
"""

from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, available_timezones

__all__ = [
    "DAY_MS",
    "ETERNITY_END",
    "ETERNITY_START",
    "GRANULARITIES",
    "HOUR_MS",
    "add_period",
    "bucket_of",
    "buckets",
    "contains",
    "covered",
    "created_within",
    "format_instant",
    "format_interval",
    "normalize_granularity",
    "now_iso",
    "overlaps",
    "parse_instant",
    "parse_interval",
    "parse_period",
]

# Joda/Druid `Intervals.ETERNITY` bounds (JodaUtils.MIN_INSTANT / MAX_INSTANT) and their ISO spelling.
ETERNITY_START = -4611686018427387904
ETERNITY_END = 4611686018427387903
_ETERNITY_STRINGS = {
    ETERNITY_START: "-146136543-09-08T08:23:32.096Z",
    ETERNITY_END: "146140482-04-24T15:36:27.903Z",
}
_ETERNITY_PARSE = {v: k for k, v in _ETERNITY_STRINGS.items()}

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_INSTANT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?"
    r"(Z|[+-]\d{2}(?::?\d{2})?)?$"
)
_PERIOD_RE = re.compile(
    r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$"
)

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

# Fixed-length granularities, in ms; calendar ones (MONTH, QUARTER, YEAR) are handled separately.
_FIXED = {
    "SECOND": 1000,
    "MINUTE": 60_000,
    "FIVE_MINUTE": 300_000,
    "TEN_MINUTE": 600_000,
    "FIFTEEN_MINUTE": 900_000,
    "THIRTY_MINUTE": 1_800_000,
    "HOUR": HOUR_MS,
    "SIX_HOUR": 6 * HOUR_MS,
    "EIGHT_HOUR": 8 * HOUR_MS,
    "DAY": DAY_MS,
    "WEEK": 7 * DAY_MS,
}
_CALENDAR_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
GRANULARITIES = frozenset([*_FIXED, *_CALENDAR_MONTHS, "ALL"])
_PERIOD_TO_GRANULARITY = {
    "PT1S": "SECOND", "PT1M": "MINUTE", "PT5M": "FIVE_MINUTE", "PT10M": "TEN_MINUTE",
    "PT15M": "FIFTEEN_MINUTE", "PT30M": "THIRTY_MINUTE", "PT1H": "HOUR", "PT6H": "SIX_HOUR",
    "PT8H": "EIGHT_HOUR", "P1D": "DAY", "P1W": "WEEK", "P1M": "MONTH", "P3M": "QUARTER", "P1Y": "YEAR",
}
# Joda weeks start on Monday; 1970-01-01 was a Thursday, so week buckets are offset by 3 days.
_WEEK_OFFSET_MS = 3 * DAY_MS


def parse_instant(text: str) -> int:
    """ISO-8601 instant (date or date-time, optional zone; UTC when absent, as in Druid) -> epoch ms."""
    text = text.strip()
    if text in _ETERNITY_PARSE:
        return _ETERNITY_PARSE[text]
    m = _INSTANT_RE.match(text)
    if not m:
        raise ValueError(f"Invalid format: \"{text}\"")
    year, month, day, hh, mi, ss, frac, zone = m.groups()
    dt = datetime(int(year), int(month), int(day), int(hh or 0), int(mi or 0), int(ss or 0),
                  tzinfo=timezone.utc)
    ms = int((dt - _EPOCH) // timedelta(milliseconds=1))
    if frac:
        ms += int((frac + "000")[:3])
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 60 + int(digits[2:4] or 0)
        ms -= sign * offset * 60_000
    return ms


def format_instant(ms: int) -> str:
    """Epoch ms -> Joda's ISO form with millis and ``Z``, e.g. ``2024-01-01T00:00:00.000Z``."""
    if ms in _ETERNITY_STRINGS:
        return _ETERNITY_STRINGS[ms]
    dt = _EPOCH + timedelta(milliseconds=ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def now_iso(seconds: float) -> str:
    return format_instant(int(seconds * 1000))


def parse_period(text: str) -> tuple[int, int]:
    """ISO period -> (months, millis). Years count 12 months; weeks/days are fixed length (UTC)."""
    m = _PERIOD_RE.match(text.strip().upper())
    if not m or text.strip().upper() in ("P", "PT"):
        raise ValueError(f"Invalid format: \"{text}\"")
    y, mo, w, d, h, mi, s = m.groups()
    months = int(y or 0) * 12 + int(mo or 0)
    millis = (int(w or 0) * 7 + int(d or 0)) * DAY_MS + int(h or 0) * HOUR_MS + int(mi or 0) * 60_000
    millis += int(float(s or 0) * 1000)
    return months, millis


def _add_months(ms: int, months: int) -> int:
    dt = _EPOCH + timedelta(milliseconds=ms)
    total = dt.year * 12 + (dt.month - 1) + months
    year, month = divmod(total, 12)
    day = min(dt.day, calendar.monthrange(year, month + 1)[1])
    moved = dt.replace(year=year, month=month + 1, day=day)
    return int((moved - _EPOCH) // timedelta(milliseconds=1))


def add_period(ms: int, period: str, sign: int = 1) -> int:
    months, millis = parse_period(period)
    return _add_months(ms, sign * months) + sign * millis


def parse_interval(text: str) -> tuple[int, int]:
    """``start/end``, ``start/period`` or ``period/end`` (``_`` may replace ``/`` as in URL paths)."""
    raw = text.strip()
    parts = raw.split("/") if "/" in raw else raw.split("_")
    if len(parts) != 2:
        raise ValueError(f"Invalid interval: \"{text}\"")
    a, b = parts
    if a.upper().startswith("P"):
        end = parse_instant(b)
        start = add_period(end, a, -1)
    elif b.upper().startswith("P"):
        start = parse_instant(a)
        end = add_period(start, b)
    else:
        start, end = parse_instant(a), parse_instant(b)
    if end < start:
        raise ValueError(f"The end instant must be greater than the start instant: \"{text}\"")
    return start, end


def created_within(interval: str | None) -> float:
    """Seconds before now within which a completed task must have been created to be listed: Druid's
    ``recentlyFinishedThreshold`` (PT24H: ``TaskStorageConfig.java``, applied by
    ``TaskStorageUtils.processTaskLookups``) without ``createdTimeInterval``, else that interval's length, whatever
    its dates (``TaskQueryTool.getTaskStatusPlusList``: ``Intervals.of(...).toDuration()``). ValueError: invalid."""
    if not interval:
        return 86400.0
    start, end = parse_interval(interval)
    return (end - start) / 1000


def format_interval(interval: tuple[int, int]) -> str:
    return f"{format_instant(interval[0])}/{format_instant(interval[1])}"


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Joda ``Interval.overlaps`` (half-open; empty intervals touch nothing)."""
    return a[0] < b[1] and b[0] < a[1]


def contains(outer: tuple[int, int], inner: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def covered(target: tuple[int, int], pieces: list[tuple[int, int]]) -> bool:
    """Is ``target`` fully covered by the union of ``pieces``?"""
    pos = target[0]
    for start, end in sorted(pieces):
        if start > pos:
            break
        pos = max(pos, end)
        if pos >= target[1]:
            return True
    return pos >= target[1]


def normalize_granularity(value: object) -> str:
    """segmentGranularity as Druid accepts it: a name (``"day"``) or ``{"type": "period"|"all"|"none", ...}``."""
    if isinstance(value, dict):
        gtype = str(value.get("type", "")).lower()
        if gtype in ("all", "none"):
            return gtype.upper() if gtype == "all" else "NONE"
        if gtype == "period" and str(value.get("period", "")).upper() in _PERIOD_TO_GRANULARITY:
            if value.get("origin"):
                raise ValueError(f"FakeDruid supports only period granularities without origin: {value}")
            name = _PERIOD_TO_GRANULARITY[str(value["period"]).upper()]
            zone = _zone_id(value.get("timeZone"))
            return f"{name}@{zone}" if zone else name
        raise ValueError(f"Unsupported granularity: {value}")
    name = str(value).upper()
    if name in GRANULARITIES or name == "NONE":
        return name
    raise ValueError(f"Unknown granularity [{value}]")


_OFFSET_ID = re.compile(r"^([+-])(\d{2}):?(\d{2})?$")


def _zone_id(value: object) -> str | None:
    """The zone a period counts in, None for UTC. Druid reads the id with ``DateTimes.inferTzFromString``: Joda's
    ids (case-sensitive) or a fixed offset, and any id it does not know as UTC (Druid 33 stored a task with
    ``"timeZone": "europe/berlin"`` as plain ``DAY``)."""
    if not isinstance(value, str) or value in ("UTC", "Etc/UTC"):
        return None
    if _OFFSET_ID.match(value) or value in available_timezones():
        return value
    return None


def _tz(zone_id: str) -> tzinfo:
    offset = _OFFSET_ID.match(zone_id)
    if offset is None:
        return ZoneInfo(zone_id)
    minutes = int(offset.group(2)) * 60 + int(offset.group(3) or 0)
    return timezone(timedelta(minutes=-minutes if offset.group(1) == "-" else minutes))


def _ms(moment: datetime) -> int:
    return int((moment - _EPOCH) // timedelta(milliseconds=1))


def _zoned_bucket(ms: int, name: str, zone: tzinfo) -> tuple[int, int]:
    """``PeriodGranularity`` with a time zone (Druid's ``java/util/common/granularity/PeriodGranularity.java``,
    ``truncate``): a one-unit period floors the zone's clock (``hourOfDay().roundFloor``, ``dayOfMonth()...``), a
    multi-unit one counts from the default origin, 1970-01-01T00:00 local time; days, weeks, months and years
    follow the zone's calendar (a Berlin DAY bucket is 23, 24 or 25 hours), hours and minutes are fixed lengths."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    if name in _FIXED and name not in ("DAY", "WEEK"):
        size = _FIXED[name]
        if name in ("SECOND", "MINUTE", "HOUR"):
            offset = (moment.astimezone(zone).utcoffset() or timedelta()) // timedelta(milliseconds=1)
            start = ms - (ms + offset) % size
        else:
            origin = _ms(datetime(1970, 1, 1, tzinfo=zone))
            start = origin + (ms - origin) // size * size
        return start, start + size
    local = moment.astimezone(zone).replace(tzinfo=None)
    if name in ("DAY", "WEEK"):
        first = datetime(local.year, local.month, local.day)
        first -= timedelta(days=first.weekday() if name == "WEEK" else 0)
        after = first + timedelta(days=7 if name == "WEEK" else 1)
    else:
        step = _CALENDAR_MONTHS[name]
        first = datetime(local.year, (local.month - 1) // step * step + 1, 1)
        total = first.year * 12 + first.month - 1 + step
        after = datetime(total // 12, total % 12 + 1, 1)
    return _ms(first.replace(tzinfo=zone)), _ms(after.replace(tzinfo=zone))


def bucket_of(ms: int, granularity: str) -> tuple[int, int]:
    """The segment-granularity bucket containing ``ms`` (``Granularity.bucket``)."""
    if "@" in granularity:
        name, zone_id = granularity.split("@", 1)
        return _zoned_bucket(ms, name, _tz(zone_id))
    if granularity == "ALL":
        return ETERNITY_START, ETERNITY_END
    if granularity == "NONE":
        return ms, ms + 1
    if granularity in _FIXED:
        size = _FIXED[granularity]
        offset = _WEEK_OFFSET_MS if granularity == "WEEK" else 0
        start = (ms + offset) // size * size - offset
        return start, start + size
    step = _CALENDAR_MONTHS[granularity]
    dt = _EPOCH + timedelta(milliseconds=ms)
    month0 = (dt.month - 1) // step * step
    start_dt = datetime(dt.year, month0 + 1, 1, tzinfo=timezone.utc)
    start = int((start_dt - _EPOCH) // timedelta(milliseconds=1))
    return start, _add_months(start, step)


def buckets(intervals: list[tuple[int, int]], granularity: str) -> list[tuple[int, int]]:
    """Sorted distinct buckets overlapping any of ``intervals`` (GranularitySpec.sortedBucketIntervals).

    ALL: each interval is its own bucket (``AllGranularity.getIterable`` returns the input interval; Druid 33
    publishes a day's segment for an ALL spec over that day, tests/e2e/test_all_time_real.py). Only rows bucketed
    one by one (no intervals: ``bucket_of``) land in eternity."""
    if granularity == "ALL":
        return sorted(set(intervals))
    seen: set[tuple[int, int]] = set()
    for start, end in intervals:
        pos = start
        while pos < end:
            bucket = bucket_of(pos, granularity)
            seen.add(bucket)
            if bucket[1] <= pos:  # defensive: never loop forever
                break
            pos = bucket[1]
    return sorted(seen)
