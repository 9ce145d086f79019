"""One time-window partition = one Druid interval: the partitions definitions and the per-partition plan.

Any ``TimeWindowPartitionsDefinition`` works (hourly, daily, weekly, monthly, a cron schedule, in any time zone):
a partition's window becomes the plan's interval. Whether the windows fit the spec's ``segmentGranularity`` (a
replace overwrites whole buckets: a local day straddles two UTC DAY buckets) is the core's alignment rule, run
by ``build_plan`` on sample windows when the definitions load (``alignment.py``) and again when each partition is
planned. The per-partition values are handed to the core's ``build_plan`` (which injects and validates them): the
interval, the input locations (``str.format`` templates), and the same values as Jinja variables for text
templates.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol
from zoneinfo import ZoneInfo

import dagster as dg
from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning import IngestionPlan, Plan, Preflight, ScheduleTerms, TemplateSource, build_plan

__all__ = ["PartitionWindow", "SpecTemplate", "Template", "daily_partitions", "druid_interval", "probe_days",
           "time_partitions"]

#: the cadences :func:`time_partitions` builds (a Dagster ``TimeWindowPartitionsDefinition`` each)
CADENCES = ("hourly", "daily", "weekly", "monthly", "cron")


def daily_partitions(start_date: str | datetime, end_date: str | datetime | None = None,
                     end_offset: int = 0, timezone: str = "UTC") -> dg.DailyPartitionsDefinition:
    """Daily partitions (UTC days unless ``timezone`` says otherwise), keys ``YYYY-MM-DD``."""
    return dg.DailyPartitionsDefinition(start_date=start_date, end_date=end_date, timezone=timezone,
                                        end_offset=end_offset)


def time_partitions(cadence: str, start_date: str | datetime, *, end_date: str | datetime | None = None,
                    timezone: str = "UTC", minute_offset: int = 0, hour_offset: int = 0, day_offset: int = 0,
                    end_offset: int = 0, cron_schedule: str | None = None,
                    fmt: str | None = None) -> dg.TimeWindowPartitionsDefinition:
    """The Dagster partitions definition of a cadence (what a Component's ``partitions:`` block names).

    ``day_offset`` is the weekday of weekly partitions (0 = Sunday, Dagster's default; 1 = Monday, Druid's WEEK)
    or the day of the month of monthly ones (default 1); ``cron`` takes ``cron_schedule`` and ``fmt``."""
    common: dict[str, Any] = {"start_date": start_date, "end_date": end_date, "timezone": timezone,
                              "end_offset": end_offset, "minute_offset": minute_offset}
    if cadence == "hourly":
        return dg.HourlyPartitionsDefinition(**common)
    if cadence == "daily":
        return dg.DailyPartitionsDefinition(**common, hour_offset=hour_offset)
    if cadence == "weekly":
        return dg.WeeklyPartitionsDefinition(**common, hour_offset=hour_offset, day_offset=day_offset)
    if cadence == "monthly":
        return dg.MonthlyPartitionsDefinition(**common, hour_offset=hour_offset, day_offset=day_offset or 1)
    if cadence == "cron" and cron_schedule and fmt:
        return dg.TimeWindowPartitionsDefinition(start=start_date, end=end_date, timezone=timezone, fmt=fmt,
                                                 cron_schedule=cron_schedule, end_offset=end_offset)
    raise SpecValidationError([SpecProblem(
        "partitions.type", "is not a time-window cadence this package builds" if cadence != "cron" else
        "a cron cadence needs cron_schedule and fmt", value=cadence,
        valid=f"one of {', '.join(CADENCES)} (cron with cron_schedule and fmt, e.g. '0 */6 * * *' and "
              "'%Y-%m-%d-%H:%M')")])


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


def schedule_terms(zone: str) -> ScheduleTerms:
    """The alignment refusal's fixes in Dagster's words: the partitions definition and its time zone."""
    return ScheduleTerms(
        utc_schedule="a UTC partitions_def (timezone 'UTC'), so partitions start and end on UTC bucket boundaries",
        zone_owner=f"the partitions_def's time zone ({zone})", zone=zone, opt_in="allow_unaligned=True")


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
    def of_key(cls, partitions_def: dg.TimeWindowPartitionsDefinition, key: str) -> "PartitionWindow":
        """Partition ``key``'s window, as Dagster computes it (local clock, DST included)."""
        window = partitions_def.time_window_for_partition_key(key)
        return cls(key, window.start.astimezone(timezone.utc), window.end.astimezone(timezone.utc))

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


class Template(Protocol):
    """What turns a partition window into a plan: a native spec template or an MSQ statement (``msq.py``)."""

    def plan(self, window: PartitionWindow, idempotency_key: str | None = None) -> Plan: ...

    def loosened(self) -> "Template | None":
        """The same template with the alignment refusal turned into a warning (None: no such opt-in)."""


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
            schedule_terms=schedule_terms(self.timezone),
        )

    def loosened(self) -> "SpecTemplate":
        return replace(self, allow_unaligned=True)

    def plan_day(self, key: str, idempotency_key: str | None = None) -> IngestionPlan:
        """The plan of partition ``key`` (a day in :attr:`timezone`)."""
        return self.plan(PartitionWindow.of_day(key, self.timezone), idempotency_key)

    def check_at_load(self, first_key: str) -> IngestionPlan:
        """Plan the first partition (and the first DST day of a non-UTC zone): a malformed or unaligned spec fails
        when the code location loads, not at the first materialization."""
        plans = [self.plan_day(key) for key in probe_days(first_key, self.timezone)]
        return plans[0]
