"""One daily partition = one Druid interval: the partitions definition and the per-partition plan.

Partitions are UTC days by default: Druid's DAY segments are UTC days, and a local-time day (23, 24 or 25 hours
at a DST change) straddles two of them, so a replace of one local day would overwrite hours of its neighbours.
A ``timezone`` is allowed when the spec's segmentGranularity divides the local days (HOUR) or is a period
granularity in that zone: the core's alignment rule refuses anything else when the definitions load (the first
partition and the first DST day are planned then) and again when each partition is planned. The per-partition
values are handed to the core's ``build_plan`` (which injects and validates them): the interval, the input
locations (``str.format`` templates), and the same values as Jinja variables for text templates.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import dagster as dg
from druid_ingest.planning import IngestionPlan, Preflight, TemplateSource, build_plan

__all__ = ["PartitionWindow", "SpecTemplate", "daily_partitions", "druid_interval", "probe_days"]


def daily_partitions(start_date: str | datetime, end_date: str | datetime | None = None,
                     end_offset: int = 0, timezone: str = "UTC") -> dg.DailyPartitionsDefinition:
    """Daily partitions (UTC days unless ``timezone`` says otherwise), keys ``YYYY-MM-DD``."""
    return dg.DailyPartitionsDefinition(start_date=start_date, end_date=end_date, timezone=timezone,
                                        end_offset=end_offset)


def probe_days(first_key: str, zone: str) -> list[str]:
    """The partition keys planned when the definitions load: the first one, and in a zone with DST the first day
    within a year that is not 24 hours long (where an alignment mismatch shows even for hour-sized buckets)."""
    keys = [first_key]
    day = datetime.strptime(first_key, "%Y-%m-%d")
    for _ in range(366 if zone != "UTC" else 0):
        window = PartitionWindow.of_day(day.strftime("%Y-%m-%d"), zone)
        if window.end - window.start != timedelta(days=1):
            keys.append(window.key)
            break
        day += timedelta(days=1)
    return keys


def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def druid_interval(start: datetime, end: datetime) -> str:
    """``2026-11-01T00:00:00Z/2026-11-02T00:00:00Z``: the form Druid and the core's ids use."""
    return f"{_utc(start)}/{_utc(end)}"


@dataclass(frozen=True)
class PartitionWindow:
    """A partition key and its UTC time window."""

    key: str
    start: datetime
    end: datetime

    @classmethod
    def of_day(cls, key: str, zone: str = "UTC") -> "PartitionWindow":
        """The day ``key`` in ``zone``: local midnight to local midnight (23 or 25 hours at a DST change)."""
        tz = timezone.utc if zone == "UTC" else ZoneInfo(zone)
        day = datetime.strptime(key, "%Y-%m-%d")
        start, end = day.replace(tzinfo=tz), (day + timedelta(days=1)).replace(tzinfo=tz)
        return cls(key, start.astimezone(timezone.utc), end.astimezone(timezone.utc))

    @classmethod
    def of_context(cls, context: dg.AssetExecutionContext | dg.OpExecutionContext) -> "PartitionWindow":
        window = context.partition_time_window
        return cls(context.partition_key, window.start, window.end)

    @property
    def interval(self) -> str:
        return druid_interval(self.start, self.end)

    def values(self) -> dict[str, Any]:
        """What location templates and Jinja spec templates may use: ``{partition_key}``, ``{start:%Y/%m/%d}``,
        ``{end}``, ``{interval}`` (``start``/``end`` are UTC datetimes, so format specs work)."""
        return {"partition_key": self.key, "start": self.start.astimezone(timezone.utc),
                "end": self.end.astimezone(timezone.utc), "interval": self.interval}


@dataclass(frozen=True)
class SpecTemplate:
    """What a factory was given: the template and how each partition fills it in."""

    spec: TemplateSource
    datasource: str | None = None
    input_locations: Sequence[str] = ()
    idempotency_key: str | None = None
    #: the partitions' time zone (``of_day``) and the opt-in that accepts an unaligned replace (core ``build_plan``)
    timezone: str = "UTC"
    allow_unaligned: bool = False
    #: "warn": pre-flight problems become plan warnings and the spec is submitted as is (core ``build_plan``)
    preflight: Preflight = "fail"

    def plan(self, window: PartitionWindow, idempotency_key: str | None = None) -> IngestionPlan:
        """The core plan for one partition (rendered and validated; no HTTP). ``idempotency_key`` (a run's)
        wins over the factory's."""
        values = window.values()
        locations = [location.format(**values) for location in self.input_locations] or None
        jinja = {**values, "start": values["start"].isoformat(), "end": values["end"].isoformat()}
        return build_plan(
            self.spec, datasource=self.datasource, intervals=[window.interval], input_locations=locations,
            variables=jinja, idempotency_key=idempotency_key or self.idempotency_key,
            allow_unaligned=self.allow_unaligned, preflight=self.preflight,
        )

    def plan_day(self, key: str, idempotency_key: str | None = None) -> IngestionPlan:
        """The plan of partition ``key`` (a day in :attr:`timezone`)."""
        return self.plan(PartitionWindow.of_day(key, self.timezone), idempotency_key)

    def check_at_load(self, first_key: str) -> IngestionPlan:
        """Plan the first partition (and the first DST day of a non-UTC zone): a malformed or unaligned spec fails
        when the code location loads, not at the first materialization."""
        plans = [self.plan_day(key) for key in probe_days(first_key, self.timezone)]
        return plans[0]
