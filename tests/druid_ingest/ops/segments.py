"""The used-segment rows the gate, timeline and watch tests build (written once): hour intervals of 2026-11-01
and a Segment of any interval."""

from __future__ import annotations

from druid_ingest.api._models import Segment


def hour(h: int, to: int | None = None) -> str:
    """Hours ``h`` to ``to`` (default ``h + 1``; 24 is the next midnight) of 2026-11-01 as a Druid interval."""
    end = to if to is not None else h + 1
    tail = f"2026-11-01T{end:02d}:00:00.000Z" if end < 24 else "2026-11-02T00:00:00.000Z"
    return f"2026-11-01T{h:02d}:00:00.000Z/{tail}"


def seg(interval: str, version: str, part: int = 0, core: int = 1, tomb: bool = False,
        compacted: bool = False) -> Segment:
    """Partition ``part`` of ``version`` in datasource ``ds``; ``core`` partitions complete the version."""
    return Segment(f"ds_{interval}_{version}_{part}", interval, version, part, tomb, core_partitions=core,
                   compacted=compacted)
