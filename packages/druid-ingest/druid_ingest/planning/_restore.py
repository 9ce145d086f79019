"""Restoring one interval of a datasource (marking its unused segments used again) as a segment write.

The undo of a drop, before a kill deleted the segments: Druid serves the interval again (the Coordinator loads its
segments, the Broker routes to them). Druid's ``markUsed``
(``OverlordDataSourcesResource.markNonOvershadowedSegmentsAsUsed`` from Druid 32, the Coordinator's
``DataSourcesResource`` before: ``_segment_write.py`` picks the API) marks the unused segments *contained* in the
interval used, but only those the used segments overlapping it and the other unused ones there do not overshadow
(``SqlSegmentsMetadataQuery.markNonOvershadowedSegmentsAsUsedInternal``), so an older version under a dropped newer
one stays unused. The wait after it is green only once every data segment
visible in the interval is served and routed (:attr:`RestorePlan.wants_served`). An interval showing no data segment
after the request (never ingested, killed: Druid answers 200 with 0 changed) is refused, not green over an empty
interval, unless ``allow_empty``.

It is not a task: nothing to adopt, and a retry re-sends a request that changes nothing the second time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from druid_ingest.planning._segment_write import IntervalWrite, checked_interval
from druid_ingest.planning._work import WorkKind

__all__ = ["RestorePlan", "build_restore_plan"]


@dataclass(frozen=True)
class RestorePlan(IntervalWrite):
    """A valid restore of one interval. Build it with :func:`build_restore_plan`."""

    ACTION: ClassVar[str] = "markUsed"

    @property
    def kind(self) -> WorkKind:
        return "restore"

    @property
    def mode(self) -> str:
        return "RESTORE"

    @property
    def wants_served(self) -> bool:
        return True  # green once what the interval shows again is served and routed

    def describe(self) -> str:
        return (f"RESTORE {', '.join(self.intervals)} of {self.datasource!r}: mark its unused segments used again, "
                f"so Druid serves them (not once a kill deleted them); name {self.base_task_id}")


def build_restore_plan(datasource: str, interval: str, *, idempotency_key: str | None = None,
                       allow_empty: bool = False) -> RestorePlan:
    """Check a restore of ``interval`` of ``datasource`` (no HTTP); every problem named with its field.
    ``allow_empty``: green when nothing is there to restore, instead of ``DruidNothingToRestoreError``."""
    canonical, name = checked_interval("restore", datasource, interval, idempotency_key, purpose="to restore")
    return RestorePlan(datasource, (canonical,), name, allow_empty=bool(allow_empty))
