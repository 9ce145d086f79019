"""The changes between two served states, coalesced into one batch per look: pure.

Compared stretch by stretch (every start and end of either state is a cut), so a DAY -> MONTH compaction is one
month that changed version, whatever the chunks before it were. Then neighbouring stretches that changed the
same way (the same kind, version and writer) become one interval: a 30-day replace or compaction is one change,
naming every version it replaced there. One look gives one batch, so a storm of loads between two looks costs one
event, as long as the look's cadence.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any, Literal

from druid_ingest.ops.gate.timeline import format_instant, version_key
from druid_ingest.ops.watch.state import Chunk, Writer

__all__ = ["ChangeKind", "ServedChange", "coalesce", "diff"]

#: served: a new version is what queries read there (``replaced``: what they read before, empty where nothing);
#: appended: the same version, more (or fewer) served segments; dropped: nothing is served there any more
ChangeKind = Literal["served", "appended", "dropped"]


@dataclass(frozen=True)
class ServedChange:
    """One change of what queries read in ``interval``. Primitives only: every face serializes it as is."""

    kind: ChangeKind
    interval: str
    #: the version read there now (None when dropped) and who wrote it
    version: str | None
    writer: Writer | None
    #: the versions read there before, oldest first (empty where nothing was served; the version itself for appended)
    replaced: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "interval": self.interval, "version": self.version, "writer": self.writer,
                "replaced": list(self.replaced)}


@dataclass(frozen=True)
class _Stretch:
    start: datetime
    end: datetime
    old: Chunk | None
    new: Chunk | None


def _at(chunks: list[Chunk], start: datetime, first: int) -> tuple[Chunk | None, int]:
    """The chunk covering ``start`` (None in a gap), scanning from index ``first``; and where the next scan starts."""
    while first < len(chunks) and chunks[first].end <= start:
        first += 1
    if first < len(chunks) and chunks[first].start <= start:
        return chunks[first], first
    return None, first


def _stretches(old: list[Chunk], new: list[Chunk]) -> list[_Stretch]:
    cuts = sorted({t for c in (*old, *new) for t in (c.start, c.end)})
    out, i, j = [], 0, 0
    for a, b in pairwise(cuts):
        before, i = _at(old, a, i)
        after, j = _at(new, a, j)
        if (before.value if before else None) != (after.value if after else None):
            out.append(_Stretch(a, b, before, after))
    return out


def _change(s: _Stretch) -> ServedChange:
    interval = f"{format_instant(s.start)}/{format_instant(s.end)}"
    replaced = (s.old.version,) if s.old else ()
    if s.new is None:
        return ServedChange("dropped", interval, None, None, replaced)
    kind: ChangeKind = "appended" if s.old and s.old.version == s.new.version else "served"
    return ServedChange(kind, interval, s.new.version, s.new.writer, replaced)


def coalesce(changes: list[ServedChange]) -> list[ServedChange]:
    """Neighbouring changes (in time order, one ending where the next starts) of one kind, version and writer as
    one interval, with the versions they replaced merged."""
    out: list[ServedChange] = []
    for change in changes:
        last = out[-1] if out else None
        if last and (last.kind, last.version, last.writer) == (change.kind, change.version, change.writer) \
                and last.interval.split("/")[1] == change.interval.split("/")[0]:
            replaced = tuple(sorted({*last.replaced, *change.replaced}, key=version_key))
            out[-1] = ServedChange(last.kind, f"{last.interval.split('/')[0]}/{change.interval.split('/')[1]}",
                                   last.version, last.writer, replaced)
        else:
            out.append(change)
    return out


def diff(old: list[Chunk], new: list[Chunk]) -> list[ServedChange]:
    """What changed from ``old`` to ``new`` (two served states), coalesced, in time order."""
    return coalesce([_change(s) for s in _stretches(old, new)])
