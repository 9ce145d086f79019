"""One daily partition = one Druid interval: the partitions definition and the per-partition plan.

Partitions are UTC days on purpose: Druid's DAY segments are UTC, and a local-time day is 23 or 25 hours
long at a DST change, which would straddle two Druid time chunks. The per-partition values are handed to the
core's ``build_plan`` (which injects and validates them): the interval, the input locations (``str.format``
templates), and the same values as Jinja variables for text templates.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import dagster as dg

from airflow_provider_druid_ingest.core.plan import IngestionPlan, build_plan
from airflow_provider_druid_ingest.core.spec.render import TemplateSource

__all__ = ["PartitionWindow", "SpecTemplate", "daily_partitions", "druid_interval"]


def daily_partitions(start_date: str | datetime, end_date: str | datetime | None = None,
                     end_offset: int = 0) -> dg.DailyPartitionsDefinition:
    """Daily partitions in UTC, keys ``YYYY-MM-DD``."""
    return dg.DailyPartitionsDefinition(start_date=start_date, end_date=end_date, timezone="UTC",
                                        end_offset=end_offset)


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
    def of_day(cls, key: str) -> "PartitionWindow":
        start = datetime.strptime(key, "%Y-%m-%d").replace(tzinfo=timezone.utc)
        return cls(key, start, start + timedelta(days=1))

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

    def plan(self, window: PartitionWindow, idempotency_key: str | None = None) -> IngestionPlan:
        """The core plan for one partition (rendered and validated; no HTTP). ``idempotency_key`` (a run's)
        wins over the factory's."""
        values = window.values()
        locations = [location.format(**values) for location in self.input_locations] or None
        jinja = {**values, "start": values["start"].isoformat(), "end": values["end"].isoformat()}
        return build_plan(
            self.spec, datasource=self.datasource, intervals=[window.interval], input_locations=locations,
            variables=jinja, idempotency_key=idempotency_key or self.idempotency_key,
        )
