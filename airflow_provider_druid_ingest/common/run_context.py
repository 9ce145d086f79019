"""A run's data interval as Druid intervals, and templated values as the operators need them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

__all__ = ["as_list", "druid_instant", "rendered", "run_intervals"]


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
