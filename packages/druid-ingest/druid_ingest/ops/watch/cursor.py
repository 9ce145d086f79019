"""The cursor a watcher keeps between looks, and its JSON codec.

It holds what the next look diffs against: the datasource and window it watches, the fingerprint of the served ids
(the same fingerprint: no change, and the look stops after one read) and the served state as chunks
``[start, end, version, writer, partitions]``, neighbours of one value merged (a year of daily replaces by one
job is a few hundred entries). A cursor read back is checked field by field: a malformed one is refused naming
the field, never diffed (a wrong state would report changes that did not happen, or miss some).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from druid_ingest.errors import DruidUsageError
from druid_ingest.ops.gate.timeline import format_instant
from druid_ingest.ops.watch.state import WRITERS, Chunk, served_digest
from druid_ingest.planning import parse_instant, parse_interval

__all__ = ["CURSOR_FORMAT", "WatchCursor", "start_cursor"]

#: bumped when the layout changes: a cursor of another format is refused, not misread
CURSOR_FORMAT = 1


@dataclass(frozen=True)
class WatchCursor:
    """Where a watch stands: the next look reports what changed since this one."""

    datasource: str
    window: str
    served: str
    chunks: tuple[Chunk, ...] = ()

    @property
    def counted(self) -> frozenset[str]:
        """The versions already reported (an append to them is not a new version)."""
        return frozenset(c.version for c in self.chunks)

    def to_dict(self) -> dict[str, Any]:
        return {"format": CURSOR_FORMAT, "datasource": self.datasource, "window": self.window, "served": self.served,
                "chunks": [[format_instant(c.start), format_instant(c.end), c.version, c.writer, c.partitions]
                           for c in self.chunks]}

    def to_json(self) -> str:
        """One compact line (a Dagster sensor's cursor is a string; a file holds it as is)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> WatchCursor:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise _refused("the cursor", text, f"JSON ({exc})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: object) -> WatchCursor:
        """The cursor ``to_dict`` wrote; DruidUsageError naming the first field that is not what it wrote."""
        if not isinstance(data, dict):
            raise _refused("the cursor", data, "a JSON object")
        if data.get("format") != CURSOR_FORMAT:
            raise _refused("format", data.get("format"), f"{CURSOR_FORMAT} (the layout this version writes)")
        datasource, window, served = data.get("datasource"), data.get("window"), data.get("served")
        if not isinstance(datasource, str) or not datasource:
            raise _refused("datasource", datasource, "a datasource name")
        if not isinstance(window, str) or not _is_interval(window):
            raise _refused("window", window, "an ISO interval")
        if not isinstance(served, str) or len(served) != len(served_digest(())):
            raise _refused("served", served, "the fingerprint of the served segment ids")
        rows = data.get("chunks")
        if not isinstance(rows, list):
            raise _refused("chunks", rows, "a list of [start, end, version, writer, partitions]")
        chunks = tuple(_chunk(i, row) for i, row in enumerate(rows))
        for i, (a, b) in enumerate(pairwise(chunks), start=1):
            if b.start < a.end:
                raise _refused(f"chunks[{i}]", rows[i], f"a chunk starting at or after chunks[{i - 1}]'s end")
        return cls(datasource, window, served, chunks)


def _chunk(i: int, row: object) -> Chunk:
    if not isinstance(row, list) or len(row) != 5:
        raise _refused(f"chunks[{i}]", row, "[start, end, version, writer, partitions]")
    start, end, version, writer, partitions = row
    try:
        first, last = parse_instant(start), parse_instant(end)
    except ValueError:
        raise _refused(f"chunks[{i}]", row, "two ISO instants first") from None
    if last <= first:
        raise _refused(f"chunks[{i}]", row, "an end after its start")
    if not isinstance(version, str) or not version:
        raise _refused(f"chunks[{i}][2]", version, "a version")
    kind = next((w for w in WRITERS if w == writer), None)
    if kind is None:
        raise _refused(f"chunks[{i}][3]", writer, f"one of {', '.join(WRITERS)}")
    if not isinstance(partitions, int) or isinstance(partitions, bool) or partitions < 1:
        raise _refused(f"chunks[{i}][4]", partitions, "a count of segments, 1 or more")
    return Chunk(first, last, version, kind, partitions)


def _is_interval(text: str) -> bool:
    try:
        parse_interval(text)
    except ValueError:
        return False
    return True


def _refused(field: str, value: object, expected: str) -> DruidUsageError:
    return DruidUsageError(f"malformed watch cursor: {field} is {str(value)[:80]!r}, expected {expected}. A cursor "
                           "is only written by a watch; remove it to start again from nothing served")


def start_cursor(datasource: str, window: str) -> WatchCursor:
    """The cursor before the first look: nothing served, so the first look reports everything served."""
    return WatchCursor(datasource, window, served_digest(()), ())
