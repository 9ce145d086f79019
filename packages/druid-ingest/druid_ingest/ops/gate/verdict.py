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

**The rule, on Druid's timeline (``timeline.py``).** The metadata store is read directly (``POST
/metadata/datasources/{ds}/segments?full``, fresh and interval-scoped) and turned into the *visible pieces* of the
task's intervals: where the newest complete version wins, clipped (a later one-hour replace inside our DAY leaves
our DAY visible as two pieces; a compaction to MONTH hides our DAY entirely). Pieces below the floor are older data
this task did not write; the others must be served: every segment of the set holding each piece, tombstones
included, in the served inventory (``GET /datasources/{ds}/intervals/{span}``), and the Broker's ``/candidates``
(themselves clipped visible pieces) must cover each piece with its version and partitions and list **no other
version overlapping it** (old HOUR segments under our DAY tombstone mean the Broker still reads old rows).
Historicals announce to the Coordinator and the Broker separately, so both are needed. The ceiling decides the
label: ``superseded`` when every piece is above it (nothing of ours stays visible), ``loaded`` otherwise. Without a
ceiling, a piece where several versions >= the floor overlap is required anyway with a detail that says the task's
own version was not observed: conservative (it waits for the newest), never early. A segment of ours that a newer
version overshadows is simply not required: Druid never loads it, and it is never "never".

**Empty.** A replace whose own version published only tombstones, or whose report counted 0 rows, ends
``nothing`` (``DruidEmptyIngestionError`` unless ``allow_empty``) once the tombstones are served and the Broker
reads nothing there: the interval's data is gone.

**Append tasks** reuse the chunk's existing version, so for them every visible piece must be served.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from druid_ingest.api import DataServer, HandoffResult, HandoffTarget, Segment
from druid_ingest.ops.gate.timeline import IntervalIndex, Piece, version_key, visible
from druid_ingest.planning import parse_instant

__all__ = [
    "ChunkOwner",
    "ChunkTarget",
    "GatePlan",
    "broker_lag",
    "chunk_targets",
    "empty_publish",
    "evaluate",
    "plan_gate",
    "required_segments",
    "span_of",
    "version_key",
]

#: own: this task's version; later: a later ingestion's (above the ceiling); unknown: the newest of several
#: versions >= the floor, without a ceiling to tell whose it is
ChunkOwner = Literal["own", "later", "unknown"]


@dataclass(frozen=True)
class ChunkTarget:
    """One visible piece of the task's intervals that must be served: every segment of the set holding it."""

    interval: str
    version: str
    owner: ChunkOwner
    segments: tuple[Segment, ...]

    @property
    def tombstone_only(self) -> bool:
        return all(s.is_tombstone for s in self.segments)


@dataclass(frozen=True)
class GatePlan:
    """What one metadata read fixes: the pieces to serve, and whether this task's publish was empty."""

    chunks: list[ChunkTarget] = field(default_factory=list)
    empty: bool = False
    #: why the missing segments are not loading, from the last look that asked (``loading_note``); kept until the
    #: next such look, so every pending line in between says it
    why: str = ""


def _own_range(target: HandoffTarget, version: str) -> bool:
    key = version_key(version)
    if key < version_key(target.min_version):
        return False
    return target.version_ceiling is None or key <= version_key(target.version_ceiling)


def chunk_targets(target: HandoffTarget, used: list[Segment]) -> list[ChunkTarget]:
    """The visible pieces of the target's intervals that matter, and whose they are (see the module docstring)."""
    floor = version_key(target.min_version)
    ceiling = version_key(target.version_ceiling) if target.version_ceiling else None
    newer = IntervalIndex([s for s in used if version_key(s.version) >= floor])
    chunks = []
    for piece in visible(used, list(target.intervals)):
        chunks.append(ChunkTarget(piece.interval, piece.version, _owner(target, piece, newer, floor, ceiling),
                                  piece.segments))
    return [c for c in chunks if target.append or version_key(c.version) >= floor]


def _owner(target: HandoffTarget, piece: Piece, newer: IntervalIndex, floor: Any, ceiling: Any) -> ChunkOwner:
    key = version_key(piece.version)
    if target.append or key < floor:
        return "own"
    if ceiling is not None:
        return "later" if key > ceiling else "own"
    versions = {s.version for s in newer.overlapping(piece.interval)}
    return "unknown" if len(versions) > 1 else "own"


def empty_publish(target: HandoffTarget, used: list[Segment]) -> bool:
    """This replace wrote no rows: the report counted none, or its own version holds only tombstones."""
    if target.rows_processed == 0:
        return True
    if target.append:
        return False
    own = [s for s in used if _own_range(target, s.version)]
    return bool(own) and all(s.is_tombstone for s in own)


def plan_gate(target: HandoffTarget, used: list[Segment]) -> GatePlan:
    return GatePlan(chunk_targets(target, used), empty_publish(target, used))


def required_segments(chunks: list[ChunkTarget]) -> list[Segment]:
    """Every segment of every set holding a required piece, once each."""
    seen: dict[str, Segment] = {}
    for chunk in chunks:
        for s in chunk.segments:
            seen.setdefault(s.segment_id or f"{s.interval}_{s.version}_{s.partition_num}", s)
    return list(seen.values())


def broker_lag(chunks: list[ChunkTarget], candidates: list[Segment]) -> tuple[int, int]:
    """(data segments the Broker does not query yet, pieces where it still reads another version).

    Candidates are the Broker's clipped visible pieces, so they are matched by overlap: each piece needs one
    candidate of its version per data partition, and none of another version (a tombstone piece needs none at
    all: the Broker never lists tombstones).
    """
    unseen = stale = 0
    index = IntervalIndex(candidates)
    for chunk in chunks:
        over = index.overlapping(chunk.interval)
        have = {c.partition_num for c in over if c.version == chunk.version}
        unseen += sum(1 for s in chunk.segments if not s.is_tombstone and s.partition_num not in have)
        stale += any(c.version != chunk.version for c in over)
    return unseen, stale


def span_of(segments: list[Segment]) -> str:
    """The smallest interval holding all ``segments`` (one served-inventory call covers them)."""
    starts = [s.interval.split("/")[0] for s in segments]
    ends = [s.interval.split("/")[1] for s in segments]
    return f"{min(starts, key=parse_instant)}/{max(ends, key=parse_instant)}"


def _label(chunks: list[ChunkTarget]) -> tuple[Literal["loaded", "superseded"], str | None, str]:
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
    empty: bool = False,
) -> HandoffResult:
    """The verdict for one look at metadata + inventory (the Broker is consulted after a ``loaded``).

    ``empty`` (``empty_publish``): once served, the verdict is ``nothing``, not ``loaded``.
    """
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
    if empty:
        said = f'; Druid said: "{target.task_message}"' if target.task_message else ""
        what = "its report counts 0 rows" if target.rows_processed == 0 else "it published only tombstones"
        return HandoffResult("nothing", detail=f"an empty replace ({what}): the interval's data is gone, "
                             f"its {len(required)} segment(s) (tombstones) are served{said}", **kw)
    if state == "superseded":
        return HandoffResult(state, detail=f"{note}; its {len(required)} segment(s) are served", **kw)
    shown = ", ".join(own_versions) if own_versions else str(superseded_by)
    return HandoffResult(state, detail=f"all {len(required)} segment(s) of version {shown} are served{suffix}", **kw)


def loading_note(servers: list[DataServer]) -> str:
    """Why segments Druid means to load (``handoffComplete`` false) are not loading, when the servers tell: no
    Historical announced, or every Historical's segment cache full. "" when loading looks merely slow."""
    historicals = [s for s in servers if s.type == "historical"]
    if not historicals:
        return ("no Historical is announced to the Coordinator (its /servers list has none), so nothing can load "
                "them until one starts")
    if all(s.max_size > 0 and s.curr_size >= s.max_size for s in historicals):
        sizes = ", ".join(f"{s.host} {s.curr_size}/{s.max_size} bytes" for s in historicals)
        return f"every Historical's segment cache is full ({sizes}): raise druid.segmentCache.locations maxSize"
    return ""
