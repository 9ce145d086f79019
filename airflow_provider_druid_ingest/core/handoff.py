"""The handoff gate's pure half: which segments are THIS task's, and are they served?

Why not the seed's check (any segment in the interval with size > 0): after a replace, the old version
stays loaded until the new one is, so that check passes before the new data is queryable. Why not
``/loadstatus``: the cluster-wide one counts overshadowed segments from a cached snapshot, and the
per-datasource one without ``forceMetadataRefresh`` can miss segments published since the last poll
(false positive), while ``forceMetadataRefresh=true`` forces a heavy full metadata poll (A.7).

What we do (A.7 option b): read the used segments of the task's intervals straight from the metadata
store (``POST /metadata/datasources/{ds}/segments?full``: fresh, interval-scoped, overshadowed included),
pick this task's version per time chunk (the smallest version >= the task's ``createdTime``; a
non-append task's lock version is taken at lock time), and require every one of those segments,
tombstones included, to be in the Coordinator's served-segment inventory for that span
(``GET /datasources/{ds}/intervals/{span}?full``), and finally the Broker's own timeline to route queries to
exactly those versions (``GET /druid/v2/datasources/{ds}/candidates``): Historicals announce segments to the
Coordinator and the Broker separately, and until the Broker has the new version a query still reads the old
one. Append tasks reuse the chunk's existing version,
so for them the gate requires every used, non-overshadowed segment in the intervals to be served.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone

from .models import HandoffResult, HandoffTarget, Segment


def parse_instant(text: str) -> datetime:
    """Druid ISO instants (``2026-11-01T00:00:00.000Z``) as aware datetimes; versions compare as times."""
    value = text.strip().replace("Z", "+00:00")
    if "T" not in value:
        value += "T00:00:00+00:00"
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _version_key(version: str) -> tuple[int, datetime | str]:
    try:
        return (0, parse_instant(version))
    except ValueError:  # not a timestamp: fall back to string order
        return (1, version)


def select_task_segments(target: HandoffTarget, used: list[Segment]) -> tuple[list[Segment], int]:
    """(this task's segments that must be served, number of chunks a newer ingestion already replaced).

    In a replaced chunk this task's segments are overshadowed and get dropped, so they are not required.
    """
    by_chunk: dict[str, list[Segment]] = defaultdict(list)
    for segment in used:
        by_chunk[segment.interval].append(segment)
    if target.append:
        mine = []
        for chunk in by_chunk.values():
            newest = max((s.version for s in chunk), key=_version_key)
            mine.extend(s for s in chunk if s.version == newest)
        return mine, 0
    floor = _version_key(target.min_version)
    mine = []
    superseded = 0
    for chunk in by_chunk.values():
        versions = sorted({s.version for s in chunk if _version_key(s.version) >= floor}, key=_version_key)
        if not versions:
            continue
        if len(versions) > 1:
            superseded += 1
        else:
            mine.extend(s for s in chunk if s.version == versions[0])
    return mine, superseded


def broker_lag(mine: list[Segment], candidates: list[Segment]) -> tuple[int, int]:
    """(this task's data segments the Broker does not query yet, chunks where it still sees another version).

    The Broker never lists tombstones, so a chunk this task emptied must simply show no other version.
    """
    ours = {s.interval: s.version for s in mine}
    wanted = {(s.interval, s.partition_num) for s in mine if not s.is_tombstone}
    present = {(c.interval, c.partition_num) for c in candidates if ours.get(c.interval) == c.version}
    stale = {c.interval for c in candidates if c.interval in ours and c.version != ours[c.interval]}
    return len(wanted - present), len(stale)


def span_of(segments: list[Segment]) -> str:
    """The smallest interval holding all ``segments`` (one served-inventory call covers them)."""
    starts = [s.interval.split("/")[0] for s in segments]
    ends = [s.interval.split("/")[1] for s in segments]
    return f"{min(starts, key=parse_instant)}/{max(ends, key=parse_instant)}"


def evaluate(
    target: HandoffTarget,
    mine: list[Segment],
    superseded_chunks: int,
    served: set[str],
    never: set[str] | None = None,
) -> HandoffResult:
    """The verdict for one look at metadata + inventory."""
    never = never or set()
    version = min((s.version for s in mine), key=_version_key) if mine else None
    if not mine:
        if superseded_chunks:
            return HandoffResult("superseded", detail="a newer ingestion replaced this task's segments")
        if not target.segments_published:
            # The metadata store is read directly and a task is SUCCESS only after its publish committed,
            # so no segment of ours there means the task published none (no rows, nothing to replace).
            return HandoffResult("nothing", detail="the task published no segments (no rows, nothing replaced)")
        return HandoffResult(
            "pending",
            detail="none of this task's segments are in the metadata store yet"
            + ("" if target.segments_published is None else f" (report says {target.segments_published})"),
        )
    missing = tuple(sorted(s.segment_id for s in mine if s.segment_id not in served))
    kw = {"expected": len(mine), "served": len(mine) - len(missing), "missing": missing, "version": version}
    if never:
        return HandoffResult(
            "never",
            never=tuple(sorted(never)),
            detail="load rules give these segments zero replicas (or drop them): they will never be served",
            **kw,
        )
    if missing:
        return HandoffResult("pending", detail=f"{len(missing)} of {len(mine)} segment(s) not served yet", **kw)
    return HandoffResult("loaded", detail=f"all {len(mine)} segment(s) of version {version} are served", **kw)
