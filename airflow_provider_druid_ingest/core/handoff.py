"""The handoff gate's pure half: in each time chunk, which version must be served, and whose is it?

Why not "any segment in the interval with size > 0": after a replace the old version stays loaded until the new
one is, so that passes before the new data is queryable. Why not ``/loadstatus``: the cluster-wide one counts
overshadowed segments from a cached snapshot, the per-datasource one without ``forceMetadataRefresh`` can miss
segments published since the last poll, and with it forces a heavy full metadata poll (docs/druid-contract.md).

**Which version is this task's.** Druid's report lists no segment ids or versions. A replace task's segments
carry the version of its time-chunk lock, which is the Overlord's clock *when the lock is granted*, not at
``createdTime``: a task queued behind another one's lock gets its version only when that lock is released, so
two tasks for one day can get versions in either order relative to their createdTimes (task A created before B,
both waiting for C: A locks when C ends, after B was created, so A's version is above B's createdTime). What is
certain: this task's version is >= its ``createdTime`` (the *floor*), and while it holds the lock no other
replace of the same chunk can get one, so every later replace has a version above any instant at which this
task was seen holding its lock. Waits record such an instant, the *ceiling* (``version_ceiling``): the exact lock
version from ``activeLocks`` or, without STATE WRITE, the ``queueInsertionTime`` the runner stamps milliseconds
after the lock is granted. Then in each chunk this task's version is the newest one in ``[floor, ceiling]``
(earlier holders published before it locked) and anything above the ceiling is a later ingestion.

**The rule, per time chunk of the task's intervals (replace tasks).** Take the newest *used* version at or above
the floor (the metadata store is read directly: ``POST /metadata/datasources/{ds}/segments?full``, fresh and
interval-scoped). All of its segments, tombstones included, must be in the served inventory
(``GET /datasources/{ds}/intervals/{span}?full``) and the Broker's timeline must route to exactly that version
(``GET /druid/v2/datasources/{ds}/candidates``): Historicals announce to the Coordinator and to the Broker
separately, and until the Broker has the new version queries read the old one. That version is what queries
will read, whoever wrote it, so the gate is right about "queryable" even without a ceiling. The ceiling only
decides the label: ``superseded`` (naming the later version) when the newest is above it, ``loaded`` otherwise.
Without a ceiling a chunk holding several versions >= the floor is ``loaded`` with a detail that says the task's
own version was not observed: conservative (it waits for the newest), never early.

**Append tasks** reuse the chunk's existing version, so for them every used segment of each chunk's newest
version must be served.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .models import HandoffResult, HandoffTarget, Segment
from .spec.intervals import parse_instant

__all__ = [
    "ChunkOwner",
    "ChunkTarget",
    "broker_lag",
    "chunk_targets",
    "evaluate",
    "required_segments",
    "span_of",
    "version_key",
]

#: own: this task's version; later: a later ingestion's (above the ceiling); unknown: the newest of several
#: versions >= the floor, without a ceiling to tell whose it is
ChunkOwner = Literal["own", "later", "unknown"]


def version_key(version: str) -> tuple[int, datetime | str]:
    """Versions compare as instants (they are the lock's time); a version that is not one sorts as text."""
    try:
        return (0, parse_instant(version))
    except ValueError:  # not a timestamp: fall back to string order
        return (1, version)


@dataclass(frozen=True)
class ChunkTarget:
    """What must be served in one time chunk: every segment of ``version`` there."""

    interval: str
    version: str
    owner: ChunkOwner
    segments: tuple[Segment, ...]


def chunk_targets(target: HandoffTarget, used: list[Segment]) -> list[ChunkTarget]:
    """Per time chunk holding a relevant version, the newest one and whose it is (see the module docstring)."""
    by_chunk: dict[str, list[Segment]] = defaultdict(list)
    for segment in used:
        by_chunk[segment.interval].append(segment)
    floor = version_key(target.min_version)
    ceiling = version_key(target.version_ceiling) if target.version_ceiling else None
    chunks = []
    for interval, segments in by_chunk.items():
        versions = sorted({s.version for s in segments}, key=version_key)
        owner: ChunkOwner = "own"
        if not target.append:
            versions = [v for v in versions if version_key(v) >= floor]
            if not versions:
                continue
            if ceiling is not None:
                owner = "later" if version_key(versions[-1]) > ceiling else "own"
            elif len(versions) > 1:
                owner = "unknown"
        newest = versions[-1]
        chunks.append(
            ChunkTarget(interval, newest, owner, tuple(s for s in segments if s.version == newest))
        )
    return sorted(chunks, key=lambda c: parse_instant(c.interval.split("/")[0]))


def required_segments(chunks: list[ChunkTarget]) -> list[Segment]:
    return [s for chunk in chunks for s in chunk.segments]


def broker_lag(required: list[Segment], candidates: list[Segment]) -> tuple[int, int]:
    """(required data segments the Broker does not query yet, chunks where it still sees another version).

    The Broker never lists tombstones, so a chunk that was emptied must simply show no other version.
    """
    wanted_version = {s.interval: s.version for s in required}
    wanted = {(s.interval, s.partition_num) for s in required if not s.is_tombstone}
    present = {(c.interval, c.partition_num) for c in candidates if wanted_version.get(c.interval) == c.version}
    stale = {c.interval for c in candidates if c.interval in wanted_version and c.version != wanted_version[c.interval]}
    return len(wanted - present), len(stale)


def span_of(segments: list[Segment]) -> str:
    """The smallest interval holding all ``segments`` (one served-inventory call covers them)."""
    starts = [s.interval.split("/")[0] for s in segments]
    ends = [s.interval.split("/")[1] for s in segments]
    return f"{min(starts, key=parse_instant)}/{max(ends, key=parse_instant)}"


def _label(chunks: list[ChunkTarget]) -> tuple[str, str | None, str]:
    """(state once everything required is served, superseded_by, detail prefix)."""
    later = sorted({c.version for c in chunks if c.owner == "later"}, key=version_key)
    own = [c for c in chunks if c.owner == "own"]
    unknown = [c for c in chunks if c.owner == "unknown"]
    if later and not own and not unknown:
        return "superseded", later[-1], f"a later ingestion (version {', '.join(later)}) replaced this task's data"
    notes = []
    if later:
        notes.append(f"{len([c for c in chunks if c.owner == 'later'])} chunk(s) since replaced by version "
                     f"{', '.join(later)}")
    if unknown:
        notes.append(
            f"in {len(unknown)} chunk(s) several versions are newer than the task's createdTime and its lock was "
            "never observed, so the newest is required (it may be a later ingestion's)"
        )
    return "loaded", (later[-1] if later else None), "; ".join(notes)


def evaluate(
    target: HandoffTarget,
    chunks: list[ChunkTarget],
    served: set[str],
    never: set[str] | None = None,
) -> HandoffResult:
    """The verdict for one look at metadata + inventory (the Broker is consulted after a ``loaded``)."""
    never = never or set()
    required = required_segments(chunks)
    if not required:
        if not target.segments_published:
            # The metadata store is read directly and a task is SUCCESS only after its publish committed,
            # so nothing at or above its createdTime there means it published nothing.
            said = f'; Druid said: "{target.task_message}"' if target.task_message else ""
            return HandoffResult("nothing", detail=f"the task published no segments (no rows, nothing replaced){said}")
        return HandoffResult(
            "pending",
            detail=f"none of this task's segments are in the metadata store yet (report says "
            f"{target.segments_published})",
        )
    own_versions = sorted({c.version for c in chunks if c.owner != "later"}, key=version_key)
    version = own_versions[0] if own_versions else None
    missing = tuple(sorted(s.segment_id for s in required if s.segment_id not in served))
    state, superseded_by, note = _label(chunks)
    kw: dict[str, Any] = {
        "expected": len(required),
        "served": len(required) - len(missing),
        "missing": missing,
        "version": version,
        "superseded_by": superseded_by,
    }
    suffix = f"; {note}" if note and state == "loaded" else ""
    if never:
        return HandoffResult(
            "never",
            never=tuple(sorted(never)),
            detail="load rules give these segments zero replicas (or drop them): they will never be served",
            **kw,
        )
    if missing:
        head = note if state == "superseded" else f"{len(missing)} of {len(required)} segment(s) not served yet"
        tail = f": {len(missing)} of {len(required)} segment(s) not served yet" if state == "superseded" else suffix
        return HandoffResult("pending", detail=head + tail, **kw)
    if state == "superseded":
        return HandoffResult(state, detail=f"{note}; its {len(required)} segment(s) are served", **kw)
    shown = ", ".join(own_versions) if own_versions else str(superseded_by)
    return HandoffResult(state, detail=f"all {len(required)} segment(s) of version {shown} are served{suffix}", **kw)
