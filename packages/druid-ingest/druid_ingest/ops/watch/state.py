"""What queries of a datasource read in a window, per time chunk, from one look: pure.

The served state is Druid's own timeline (``ops/gate/timeline.py``) over the segments that are used **and** in
the Coordinator's served inventory, with one rule on top: a version counts only once every used segment of it
in the window that Druid will load (those its metadata timeline does not overshadow) is served. So a replace or
a compaction half loaded is not a change yet; the look that sees it whole reports it, all its chunks at once. A
version an earlier look already counted keeps counting while it grows: an append's new partitions join it as
they load (an append reuses its chunk's version).

Only segments inside the window count: the served-inventory read lists the segments its interval contains, so a
segment reaching outside the window is never seen served and is left out of both reads alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

from druid_ingest.api import Segment
from druid_ingest.ops.gate.timeline import contains, format_instant, visible

__all__ = ["WRITERS", "Chunk", "Writer", "served_digest", "served_state", "writer_of"]

#: who wrote a chunk's version, as far as the segment metadata tells: a compaction (``lastCompactionState``), a
#: replace that emptied it (tombstones only), else an ingestion
Writer = Literal["ingestion", "compaction", "tombstone"]
WRITERS: tuple[Writer, ...] = get_args(Writer)


@dataclass(frozen=True)
class Chunk:
    """One stretch of time where one version is what queries read."""

    start: datetime
    end: datetime
    version: str
    writer: Writer
    #: served segments of the partition set behind it (an append makes it grow under the same version)
    partitions: int

    @property
    def interval(self) -> str:
        return f"{format_instant(self.start)}/{format_instant(self.end)}"

    @property
    def value(self) -> tuple[str, Writer, int]:
        """What a change compares: the same value on both sides of a look is no change."""
        return self.version, self.writer, self.partitions


def writer_of(segments: Iterable[Segment]) -> Writer:
    listed = list(segments)
    if all(s.is_tombstone for s in listed):
        return "tombstone"
    return "compaction" if any(s.compacted for s in listed) else "ingestion"


def served_digest(ids: Iterable[str]) -> str:
    """A fingerprint of the served ids: the same fingerprint means nothing was loaded or unloaded in between, so a
    look can stop after its one inventory read."""
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:32]


def served_state(used: list[Segment], served: set[str], window: str,
                 counted: frozenset[str] = frozenset()) -> list[Chunk]:
    """The chunks queries read in ``window``, in time order, neighbours of one value merged.

    ``used``: the metadata store's segments overlapping the window; ``served``: the inventory's ids inside it;
    ``counted``: versions an earlier look already reported (they need not be whole again).
    """
    inside = [s for s in used if contains(window, s.interval)]
    loads = {s.segment_id for piece in visible(inside) for s in piece.segments}  # Druid loads these, not the others
    partial = {s.version for s in inside if s.segment_id in loads and s.segment_id not in served}
    shown = [s for s in inside if s.segment_id in served and (s.version in counted or s.version not in partial)]
    chunks: list[Chunk] = []
    for piece in visible(shown):
        chunk = Chunk(piece.start, piece.end, piece.version, writer_of(piece.segments), len(piece.segments))
        if chunks and chunks[-1].end == chunk.start and chunks[-1].value == chunk.value:
            chunk = Chunk(chunks.pop().start, chunk.end, chunk.version, chunk.writer, chunk.partitions)
        chunks.append(chunk)
    return chunks
