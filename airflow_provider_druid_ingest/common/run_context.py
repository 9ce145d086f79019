"""A run's data interval as Druid intervals, and templated values as the operators need them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

__all__ = ["as_list", "druid_instant", "no_interval_warning", "rendered", "run_intervals", "run_partition_key"]


def druid_instant(value: datetime) -> str:
    """An aware datetime as Druid-friendly UTC ISO 8601: ``2026-11-01T00:00:00Z`` (millis when non-zero)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    value = value.astimezone(timezone.utc)
    millis = f".{value.microsecond // 1000:03d}" if value.microsecond else ""
    return value.strftime("%Y-%m-%dT%H:%M:%S") + millis + "Z"


def run_intervals(context: Mapping[str, Any]) -> list[str] | None:
    """``["<data_interval_start>/<data_interval_end>"]`` of the run, or None without a (non-empty) interval."""
    start, end = context.get("data_interval_start"), context.get("data_interval_end")
    if start is None or end is None or start >= end:
        return None
    return [f"{druid_instant(start)}/{druid_instant(end)}"]


def run_partition_key(context: Any) -> str | None:
    """The run's partition key (a partitioned timetable's run, Airflow 3.3), or None for any other run."""
    key = context.get("partition_key") if hasattr(context, "get") else None
    return key if isinstance(key, str) and key.strip() else None


def no_interval_warning(context: Mapping[str, Any], intervals: Any) -> str | None:
    """What to tell a partitioned run (no data interval) that passed no ``intervals=``, else None."""
    key = run_partition_key(context)
    if key is None or as_list(intervals) or run_intervals(context) is not None:
        return None
    return (f"partitioned run (partition_key={key!r}) has no data interval: using the intervals the spec names; "
            "pass intervals= built from partition_date (docs/airflow-3.3.md)")


def as_list(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def rendered(value: Any) -> str | None:
    """A templated string, or None when it rendered empty (an XCom that was never pushed renders ``"None"``)."""
    text = str(value).strip() if value is not None else ""
    return text if text and text != "None" else None
