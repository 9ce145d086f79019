"""Druid's time buckets for a granularity: where a bucket starts and where the next one begins.

A replace locks and overwrites whole ``segmentGranularity`` buckets (``UniformGranularitySpec`` expands every
input interval with ``Granularity.getIterable``), so pre-flight has to know them exactly. The rules mirror
``PeriodGranularity``: the standard names are periods in UTC with the origin at the epoch (so ``SIX_HOUR`` starts
at 00/06/12/18 UTC, ``QUARTER`` in January/April/July/October, ``WEEK`` on Monday); a period with a ``timeZone``
counts years, months, weeks and days on that zone's calendar (a Berlin day is 23, 24 or 25 hours) and hours,
minutes and seconds as fixed lengths from the origin (by default 1970-01-01T00:00 local time).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from druid_ingest.planning.spec.intervals import Period, parse_duration, parse_instant

__all__ = ["ALL", "NONE", "Buckets", "Unreadable", "buckets_of", "misspelled_zone"]

_UTC = timezone.utc
_EPOCH = datetime(1970, 1, 1)
#: a standard granularity name -> its ISO period (``GranularityType``)
_STANDARD = {
    "SECOND": "PT1S", "MINUTE": "PT1M", "FIVE_MINUTE": "PT5M", "TEN_MINUTE": "PT10M", "FIFTEEN_MINUTE": "PT15M",
    "THIRTY_MINUTE": "PT30M", "HOUR": "PT1H", "SIX_HOUR": "PT6H", "EIGHT_HOUR": "PT8H", "DAY": "P1D",
    "WEEK": "P1W", "MONTH": "P1M", "QUARTER": "P3M", "YEAR": "P1Y",
}
_CALENDAR_UNITS = ("years", "months", "weeks", "days")
_FIXED_SECONDS = {"hours": 3600, "minutes": 60, "seconds": 1}
_OFFSET_ZONE = re.compile(r"^([+-])(\d{2}):?(\d{2})?$")

#: ``ALL``: one bucket for all time (each interval of a spec is its own bucket); ``NONE``: millisecond buckets
ALL = "ALL"
NONE = "NONE"


@dataclass(frozen=True)
class Unreadable:
    """A granularity this module cannot evaluate (a compound period, an unknown zone): say so, never refuse."""

    reason: str


@dataclass(frozen=True)
class Buckets:
    """One period granularity: ``count`` of ``unit`` per bucket, counted in ``zone`` from ``origin`` (UTC)."""

    label: str
    unit: str
    count: int
    zone: tzinfo
    origin: datetime
    has_origin: bool

    def floor(self, moment: datetime) -> datetime:
        """The start of the bucket holding ``moment`` (``Granularity.bucketStart``)."""
        if self.unit in _FIXED_SECONDS:
            step = self.count * _FIXED_SECONDS[self.unit]
            elapsed = int((moment - self.origin).total_seconds() // step) * step
            return self.origin + timedelta(seconds=elapsed)
        local, origin = _local(moment, self.zone), _local(self.origin, self.zone)
        if self.unit == "weeks" and self.count == 1 and not self.has_origin:
            midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
            return _utc(midnight - timedelta(days=midnight.weekday()), self.zone)
        if self.unit in ("weeks", "days"):
            size = timedelta(days=7 if self.unit == "weeks" else 1)
            n = (local - origin) // size
            return _utc(origin + (n - n % self.count) * size, self.zone)
        per = 12 if self.unit == "years" else 1
        months = (local.year - origin.year) * 12 + local.month - origin.month
        if _add_months(origin, months) > local:
            months -= 1
        units = months // per
        return _utc(_add_months(origin, (units - units % self.count) * per), self.zone)

    def next(self, start: datetime) -> datetime:
        """The start of the bucket after the one starting at ``start`` (``Granularity.increment``)."""
        if self.unit in _FIXED_SECONDS:
            return start + timedelta(seconds=self.count * _FIXED_SECONDS[self.unit])
        local = _local(start, self.zone)
        if self.unit in ("weeks", "days"):
            return _utc(local + timedelta(days=self.count * (7 if self.unit == "weeks" else 1)), self.zone)
        return _utc(_add_months(local, self.count * (12 if self.unit == "years" else 1)), self.zone)

    def aligned(self, moment: datetime) -> bool:
        return self.floor(moment) == moment


def _local(moment: datetime, zone: tzinfo) -> datetime:
    return moment.astimezone(zone).replace(tzinfo=None)


def _utc(local: datetime, zone: tzinfo) -> datetime:
    return local.replace(tzinfo=zone).astimezone(_UTC)


def _add_months(when: datetime, months: int) -> datetime:
    return Period(months=months).add_to(when) if months >= 0 else Period(months=-months).add_to(when, sign=-1)


def _zone(value: Any) -> tzinfo | Unreadable:
    if value is None or (isinstance(value, str) and value.upper() in ("UTC", "Z", "ETC/UTC")):
        return _UTC
    if not isinstance(value, str):
        return Unreadable(f"timeZone {value!r} is not a zone name")
    offset = _OFFSET_ZONE.match(value.strip())
    if offset:
        sign = -1 if offset.group(1) == "-" else 1
        return timezone(sign * timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3) or 0)))
    try:
        return ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        return Unreadable(f"timeZone {value!r} is not a zone this machine knows")


@cache
def _zones_by_lower_name() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


def misspelled_zone(value: Any) -> str | None:
    """The zone id ``value`` means when it differs from a real one only in case (``europe/berlin``), else None.

    Zone ids are case-sensitive in Druid (``DateTimes.inferTzFromString``: Joda's ``DateTimeZone.forID``, then
    Java's ``TimeZone.getTimeZone``, which answers GMT for an id it does not know). Seen on Druid 33: a task with
    ``"timeZone": "europe/berlin"`` is accepted and buckets in UTC. A variant of a zone that is UTC all year
    (``utc``) means what it says, so it is not reported."""
    if not isinstance(value, str):
        return None
    real = _zones_by_lower_name().get(value.strip().lower())
    if real is None or real == value:
        return None
    zone = ZoneInfo(real)
    if all(zone.utcoffset(datetime(2026, month, 1)) == timedelta(0) for month in (1, 7)):
        return None
    return real


def _single_unit(period: Period) -> tuple[str, int] | None:
    fields = {name: getattr(period, name) for name in (*_CALENDAR_UNITS, *_FIXED_SECONDS)}
    used = [(name, value) for name, value in fields.items() if value]
    if len(used) != 1 or not float(used[0][1]).is_integer():
        return None
    return used[0][0], int(used[0][1])


def _period_buckets(text: str, zone_value: Any, origin_value: Any, label: str) -> Buckets | Unreadable:
    try:
        period = parse_duration(text)
    except ValueError:
        return Unreadable(f"period {text!r} is not an ISO-8601 period")
    unit = _single_unit(period)
    if unit is None:
        return Unreadable(f"period {text!r} mixes units (a compound period)")
    zone = _zone(zone_value)
    if isinstance(zone, Unreadable):
        return zone
    if origin_value is None:
        origin = _utc(_EPOCH, zone)
    else:
        try:
            origin = parse_instant(str(origin_value)).astimezone(_UTC)
        except ValueError:
            return Unreadable(f"origin {origin_value!r} is not an ISO-8601 instant")
    return Buckets(label, unit[0], unit[1], zone, origin, origin_value is not None)


def buckets_of(granularity: Any) -> Buckets | Unreadable | str:
    """How Druid buckets time for a ``segmentGranularity`` value: :class:`Buckets`, ``ALL``, ``NONE``, or
    :class:`Unreadable` for forms this module cannot evaluate (absent means ``DAY``: UniformGranularitySpec)."""
    if granularity is None:
        granularity = "DAY"
    if isinstance(granularity, str):
        name = granularity.upper()
        if name in (ALL, NONE):
            return name
        if name in _STANDARD:
            return _period_buckets(_STANDARD[name], None, None, name)
        return Unreadable(f"segmentGranularity {granularity!r} is not a granularity name")
    if not isinstance(granularity, dict):
        return Unreadable(f"segmentGranularity {granularity!r} is neither a name nor an object")
    kind = str(granularity.get("type", "")).lower()
    if kind in ("all", "none"):
        return kind.upper()
    if kind == "period":
        zone = granularity.get("timeZone")
        label = f"period {granularity.get('period')}" + (f" in {zone}" if zone else "")
        return _period_buckets(str(granularity.get("period") or ""), zone, granularity.get("origin"), label)
    if kind == "duration":
        ms = granularity.get("duration")
        if isinstance(ms, bool) or not isinstance(ms, int) or ms <= 0 or ms % 1000:
            return Unreadable(f"duration {ms!r} is not a whole number of seconds")
        return _period_buckets(f"PT{ms // 1000}S", None, granularity.get("origin") or "1970-01-01T00:00:00Z",
                               f"duration {ms} ms")
    return Unreadable(f"segmentGranularity type {kind!r} is unknown")
