"""Do the partitions fit the spec's buckets? Checked when the definitions load, with the core's rule only.

No second alignment rule lives here: sample partition windows are planned with the core's ``build_plan`` (native:
``spec.alignment``) or ``build_msq_plan`` (MSQ: ``PARTITIONED BY``), which refuse a replace whose interval is not on
bucket boundaries. This module only picks the windows (the first three, and those around the zone's first two
offset changes, where a DST day can misalign what a normal day does not) and, when one is refused, names the
partitions definition as the field at fault, with the cadences that the same rule would accept.
"""

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import dagster as dg
from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning import Plan

from dagster_druid_ingest.partitions import PartitionWindow, Template, time_partitions

__all__ = ["check_partitions", "describe_partitions", "probe_keys"]

_FIRST = 3


def describe_partitions(partitions_def: dg.TimeWindowPartitionsDefinition) -> str:
    """``cron '0 * * * *' in UTC from 2026-11-01-00:00`` (what the refusal quotes as the value)."""
    start = partitions_def.start.strftime(partitions_def.fmt)
    return f"cron {partitions_def.cron_schedule!r} in {partitions_def.timezone} from {start}"


def _offset_changes(zone: str, start: datetime, count: int = 2) -> list[datetime]:
    """The first ``count`` moments (within 400 days) where ``zone``'s UTC offset changes, to the hour."""
    if zone.upper() in ("UTC", "ETC/UTC", "Z"):
        return []
    tz = ZoneInfo(zone)
    found: list[datetime] = []
    moment = start.astimezone(tz)
    offset = moment.utcoffset()
    for _ in range(400):
        later = moment + timedelta(days=1)
        if later.utcoffset() != offset:
            hour = moment
            while hour.utcoffset() == offset:
                hour = (hour + timedelta(hours=1)).astimezone(tz)
            found.append(hour)
            if len(found) == count:
                break
            offset = later.utcoffset()
        moment = later
    return found


def probe_keys(partitions_def: dg.TimeWindowPartitionsDefinition) -> list[str]:
    """The partition keys planned at load: the first three, and the windows at and after each offset change."""
    keys: list[str] = []
    window = partitions_def.time_window_for_partition_key(
        partitions_def.get_partition_key_for_timestamp(partitions_def.start.timestamp()))
    for _ in range(_FIRST):
        keys.append(partitions_def.get_partition_key_for_timestamp(window.start.timestamp()))
        nxt = partitions_def.get_next_partition_window(window.end, respect_bounds=False)
        if nxt is None:
            break
        window = nxt
    for change in _offset_changes(partitions_def.timezone, partitions_def.start):
        key = partitions_def.get_partition_key_for_timestamp(change.timestamp())
        after = partitions_def.get_next_partition_window(partitions_def.time_window_for_partition_key(key).end,
                                                         respect_bounds=False)
        keys.append(key)
        if after is not None:
            keys.append(partitions_def.get_partition_key_for_timestamp(after.start.timestamp()))
    return list(dict.fromkeys(keys))


def _is_alignment(template: Template, window: PartitionWindow) -> bool:
    """Whether the core refused this window for its alignment only: the loosened template plans it (native), or
    the one problem is MSQ's PARTITIONED BY refusal."""
    loose = template.loosened()
    if loose is None:
        return False
    try:
        loose.plan(window)
    except SpecValidationError:
        return False
    return True


def _accepted_cadences(template: Template, zone: str, start: datetime) -> list[str]:
    """Which standard cadences in the same zone the core's rule accepts for this template (their probes plan)."""
    accepted = []
    candidates: list[tuple[str, dict[str, Any]]] = [
        ("hourly", {}), ("daily", {}), ("weekly", {}), ("weekly", {"day_offset": 1}), ("monthly", {})]
    for cadence, extra in candidates:
        fmt = "%Y-%m-%d-%H:%M" if cadence == "hourly" else "%Y-%m-%d"
        candidate = time_partitions(cadence, start.strftime(fmt), timezone=zone, **extra)
        try:
            for key in probe_keys(candidate):
                template.plan(PartitionWindow.of_key(candidate, key))
        except SpecValidationError:
            continue
        accepted.append(cadence + (" (day_offset: 1, Mondays)" if extra else ""))
    return accepted


def check_partitions(template: Template, partitions_def: dg.PartitionsDefinition,
                     field: str = "partitions_def") -> Plan:
    """Plan the probe windows (a bad template fails when the code location loads); the first window's plan.

    An alignment refusal is re-raised with a first problem naming ``field``, the partitions definition and what
    would be valid, followed by the core's problems (the granularity, the buckets touched, the hours lost)."""
    if not isinstance(partitions_def, dg.TimeWindowPartitionsDefinition):
        raise SpecValidationError([SpecProblem(
            field, "is not a time-window partitions definition: a Druid replace needs each partition's interval",
            value=type(partitions_def).__name__,
            valid="hourly, daily, weekly, monthly or a cron TimeWindowPartitionsDefinition")])
    plans = []
    for key in probe_keys(partitions_def):
        window = PartitionWindow.of_key(partitions_def, key)
        try:
            plans.append(template.plan(window))
        except SpecValidationError as exc:
            if not _is_alignment(template, window) and not any(p.path == "sql.PARTITIONED BY" for p in exc.problems):
                raise
            accepted = _accepted_cadences(template, partitions_def.timezone, partitions_def.start)
            valid = (f"partitions whose windows start and end on the spec's segment buckets: here "
                     f"{', '.join(accepted) if accepted else 'none of hourly, daily, weekly or monthly'} in "
                     f"{partitions_def.timezone}; or a segment granularity the windows are made of (the problem "
                     "below names one); or allow_unaligned: true to accept the loss (native specs only)")
            problem = SpecProblem(field, f"partition {key} ({window.interval}) is not aligned with the spec's "
                                  "segment granularity, so every materialization would overwrite data of its "
                                  "neighbours", value=describe_partitions(partitions_def), valid=valid)
            raise SpecValidationError([problem, *exc.problems], exc.hint) from None
    return plans[0]
