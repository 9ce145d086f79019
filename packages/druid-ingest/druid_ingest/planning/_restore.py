"""Restoring one interval of a datasource (marking its unused segments used again) as a segment write.

The undo of a drop, before a kill deleted the segments: Druid serves the interval again (the Coordinator loads its
segments, the Broker routes to them). Druid's ``markUsed``
(``OverlordDataSourcesResource.markNonOvershadowedSegmentsAsUsed`` from Druid 32, the Coordinator's
``DataSourcesResource`` before: ``_segment_write.py`` picks the API) marks the unused segments *contained* in the
interval used, but only those the used segments overlapping it and the other unused ones there do not overshadow
(``SqlSegmentsMetadataQuery.markNonOvershadowedSegmentsAsUsedInternal``), so an older version under a dropped newer
one stays unused. The wait after it is green only once every data segment
visible in the interval is served and routed (:attr:`RestorePlan.wants_served`).

It is not a task: nothing to adopt, and a retry re-sends a request that changes nothing the second time.
"""

from __future__ import annotations

from dataclasses import dataclass

from druid_ingest.errors import SpecValidationError
from druid_ingest.planning._ids import base_task_id, canonical_interval
from druid_ingest.planning._one_interval import one_interval_problems
from druid_ingest.planning._segment_write import OVERLORD_API, SegmentWriteApi
from druid_ingest.planning._work import WorkKind
from druid_ingest.wire import Request, seg

__all__ = ["RestorePlan", "build_restore_plan"]


@dataclass(frozen=True)
class RestorePlan:
    """A valid restore of one interval. Build it with :func:`build_restore_plan`."""

    datasource: str
    intervals: tuple[str, ...]
    base_task_id: str
    peak_slots: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def kind(self) -> WorkKind:
        return "restore"

    @property
    def mode(self) -> str:
        return "RESTORE"

    @property
    def append(self) -> bool:
        return False

    @property
    def probes_input(self) -> bool:
        return False

    @property
    def publishes(self) -> bool:
        return False  # no task publishes: its own wait (wants_served) is the gate

    @property
    def runs_task(self) -> bool:
        return False

    @property
    def task_spec(self) -> None:
        return None

    @property
    def wants_served(self) -> bool:
        return True  # green once what the interval shows again is served and routed

    def describe(self) -> str:
        return (f"RESTORE {', '.join(self.intervals)} of {self.datasource!r}: mark its unused segments used again, "
                f"so Druid serves them (not once a kill deleted them); name {self.base_task_id}")

    def submit_request(self, task_id: str) -> Request:
        """The Overlord's ``markUsed`` for the interval (``task_id`` only names the restore in logs)."""
        return self.write_request(OVERLORD_API)

    def write_request(self, api: SegmentWriteApi) -> Request:
        """``markUsed`` of the interval through ``api`` (the same body on both services)."""
        path = api.path(seg(self.datasource, "datasource"), "markUsed")
        return Request("POST", api.service, path, json_body={"interval": self.intervals[0]})


def build_restore_plan(datasource: str, interval: str, *, idempotency_key: str | None = None) -> RestorePlan:
    """Check a restore of ``interval`` of ``datasource`` (no HTTP); every problem named with its field."""
    problems, _ = one_interval_problems(datasource, interval, purpose="to restore")
    if problems:
        raise SpecValidationError(problems, subject="restore request")
    canonical = canonical_interval(interval)
    name = base_task_id({"type": "restore", "dataSource": datasource, "interval": canonical}, datasource,
                        [canonical], idempotency_key, "restore")
    return RestorePlan(datasource, (canonical,), name)
