"""What Druid makes visible from a set of used segments: its timeline rules, pure.

Druid answers every query (and the Broker's ``/candidates``, and the Coordinator's choice of what to load) from a
``VersionedIntervalTimeline`` (docs/druid-contract.md §timeline). Its rules, as this module models them:

* Segments of one interval and one version form a *partition set* (``PartitionHolder``). Only a **complete** set
  counts: its core partitions ``0..n-1`` (``numCorePartitions`` of ``NumberedShardSpec`` and the hash/range specs)
  are all present; extra partitions appended above ``n`` join it but are not needed. With ``n = 0``
  (``NumberedPartitionChunk``: every chunk is then both start and end) any set is complete. A tombstone
  (``TombstoneShardSpec``: partition 0 of 1) is a complete set by itself.
* At every instant the **newest complete version** covering it wins (``VersionedIntervalTimeline.lookup`` over the
  complete-partitions timeline). So a finer newer version clips an older coarser one into pieces (*partial
  overshadowing*: a DAY set with a later 05:00-06:00 replace shows as 00-05 and 06-24), and a coarser newer one
  (compaction DAY -> MONTH) hides the finer older ones entirely.
* Tombstones overshadow like any segment but hold no rows: a piece they win is empty, never a query target.
* Equal versions of overlapping intervals (rare: one lock gives one version) are resolved by Druid in insertion
  order; here the longer interval wins, so the answer does not depend on listing order.

Versions compare as instants (they are lock times), through :func:`version_key`.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from itertools import pairwise

from druid_ingest.api import Segment
from druid_ingest.planning import parse_instant, parse_interval
from druid_ingest.planning.spec.intervals import ETERNITY_END, ETERNITY_START

__all__ = ["IntervalIndex", "Piece", "bounds", "contains", "format_instant", "partition_sets", "version_key",
           "visible"]


_FIRST, _LAST = parse_instant(ETERNITY_START), parse_instant(ETERNITY_END)


def version_key(version: str) -> tuple[int, datetime | str]:
    """Versions compare as instants (they are the lock's time); a version that is not one sorts as text."""
    try:
        return (0, parse_instant(version))
    except ValueError:  # not a timestamp: fall back to string order
        return (1, version)


def format_instant(at: datetime) -> str:
    """Druid's own spelling of an instant: ``2026-11-01T05:00:00.000Z`` (and of eternity's bounds)."""
    utc = at.astimezone(timezone.utc)
    if utc in (_FIRST, _LAST):
        return ETERNITY_START if utc == _FIRST else ETERNITY_END
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


@lru_cache(maxsize=16384)
def bounds(interval: str) -> tuple[datetime, datetime]:
    """(start, end) of an ``a/b`` interval (or ``a/P1D``, as a spec may name it); cached: a gate look parses the
    same few hundred intervals often."""
    if "P" in interval.upper():
        return parse_interval(interval)
    start, end = interval.split("/")
    return parse_instant(start), parse_instant(end)


def contains(outer: str, inner: str) -> bool:
    """``inner`` lies within ``outer`` (how Druid's markUnused and served-inventory reads pick segments)."""
    (a, b), (c, d) = bounds(outer), bounds(inner)
    return a <= c and d <= b


class IntervalIndex:
    """Segments by start time, to find the ones overlapping an interval without scanning them all."""

    def __init__(self, segments: list[Segment]) -> None:
        spans = sorted(((*bounds(s.interval), s) for s in segments), key=lambda x: x[0])
        self._starts = [x[0] for x in spans]
        self._spans = spans
        self._longest = max((end - start for start, end, _ in spans), default=timedelta(0))

    def overlapping(self, interval: str) -> list[Segment]:
        start, end = bounds(interval)
        try:
            earliest = start - self._longest
        except OverflowError:  # a segment spanning millennia (an open-ended one): look from the beginning
            earliest = _FIRST
        lo = bisect_left(self._starts, earliest)
        hi = bisect_left(self._starts, end)
        return [s for a, b, s in self._spans[lo:hi] if a < end and start < b]


@dataclass(frozen=True)
class Piece:
    """One stretch of time where one complete partition set is what queries read."""

    start: datetime
    end: datetime
    version: str
    #: every segment of the set holding this piece (its whole interval, extra partitions included)
    segments: tuple[Segment, ...]

    @property
    def interval(self) -> str:
        return f"{format_instant(self.start)}/{format_instant(self.end)}"

    @property
    def tombstone_only(self) -> bool:
        """Nothing to read here: the newest version is a tombstone."""
        return all(s.is_tombstone for s in self.segments)


def partition_sets(segments: list[Segment]) -> dict[tuple[str, str], tuple[Segment, ...]]:
    """(interval, version) -> its segments, complete sets only (``PartitionHolder``; see the module docstring)."""
    groups: dict[tuple[str, str], dict[int, Segment]] = {}
    for seg in segments:
        groups.setdefault((seg.interval, seg.version), {})[seg.partition_num] = seg
    complete = {}
    for key, parts in groups.items():
        core = max(s.core_partitions for s in parts.values())
        tomb = any(s.is_tombstone for s in parts.values())
        if tomb or core <= 0 or (core <= len(parts) and all(p in parts for p in range(core))):
            complete[key] = tuple(parts[p] for p in sorted(parts))
    return complete


def visible(segments: list[Segment], within: list[str] | None = None) -> list[Piece]:
    """The visible pieces, in time order, clipped to ``within`` (intervals) when given.

    A sweep over every start and end of a complete set: each elementary stretch goes to the newest set covering
    it; neighbouring stretches won by one set merge.
    """
    sets = partition_sets(segments)
    bounded = sorted(((*bounds(interval), version_key(version), version, segs)
                      for (interval, version), segs in sets.items()), key=lambda x: x[0])
    cuts = sorted({t for start, end, *_ in bounded for t in (start, end)})
    pieces: list[Piece] = []
    winner_of_last: object = None
    active: list[tuple[datetime, datetime, tuple[int, datetime | str], str, tuple[Segment, ...]]] = []
    added = 0
    for a, b in pairwise(cuts):
        while added < len(bounded) and bounded[added][0] <= a:
            active.append(bounded[added])
            added += 1
        active = [x for x in active if x[1] > a]  # every end is a cut, so these cover all of [a, b)
        if not active:
            winner_of_last = None
            continue
        best = max(active, key=lambda x: (x[2], x[1] - x[0]))
        if best is winner_of_last:
            pieces[-1] = Piece(pieces[-1].start, b, best[3], best[4])
        else:
            pieces.append(Piece(a, b, best[3], best[4]))
        winner_of_last = best
    return pieces if within is None else _clip(pieces, within)


def _clip(pieces: list[Piece], within: list[str]) -> list[Piece]:
    out = []
    for interval in within:
        start, end = bounds(interval)
        for p in pieces:
            lo, hi = max(p.start, start), min(p.end, end)
            if lo < hi:
                out.append(Piece(lo, hi, p.version, p.segments))
    return sorted(out, key=lambda p: p.start)
