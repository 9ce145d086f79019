"""Dropping one interval of a datasource (marking its segments unused) as a :class:`~druid_ingest.planning.Plan`.

The retention step before a kill: Druid stops serving the interval (the Coordinator unloads its segments, the
Broker stops routing to them) but keeps them in deep storage until a kill. A segment write
(:class:`~druid_ingest.planning.SegmentWritePlan`): one ``markUnused`` of the interval through the API the
cluster's version serves (``_segment_write.py``), then a wait until nothing in it is served
(:attr:`DropPlan.wants_served` is False). Druid marks only segments *contained* in the interval
(``markSegmentsWithinIntervalAsUnused``); the operation refuses an interval that cuts a segment, which would stay
served.

It is not a task: nothing to adopt, and a retry re-sends a request that changes nothing the second time
(:attr:`DropPlan.runs_task` is False).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from druid_ingest.planning._segment_write import IntervalWrite, checked_interval
from druid_ingest.planning._work import WorkKind

__all__ = ["DropPlan", "build_drop_plan"]


@dataclass(frozen=True)
class DropPlan(IntervalWrite):
    """A valid drop of one interval. Build it with :func:`build_drop_plan`."""

    ACTION: ClassVar[str] = "markUnused"

    @property
    def kind(self) -> WorkKind:
        return "drop"

    @property
    def mode(self) -> str:
        return "DROP"

    @property
    def wants_served(self) -> bool:
        return False  # green once nothing in the interval is served

    def describe(self) -> str:
        return (f"DROP {', '.join(self.intervals)} of {self.datasource!r}: mark its segments unused, so Druid stops "
                f"serving them (deep storage keeps them until a kill); name {self.base_task_id}")


def build_drop_plan(datasource: str, interval: str, *, idempotency_key: str | None = None) -> DropPlan:
    """Check a drop of ``interval`` of ``datasource`` (no HTTP); every problem named with its field."""
    canonical, name = checked_interval("drop", datasource, interval, idempotency_key, purpose="to drop from")
    return DropPlan(datasource, (canonical,), name)
