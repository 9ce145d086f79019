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

from druid_ingest.errors import SpecValidationError
from druid_ingest.planning._ids import base_task_id, canonical_interval
from druid_ingest.planning._one_interval import one_interval_problems
from druid_ingest.planning._segment_write import OVERLORD_API, SegmentWriteApi
from druid_ingest.planning._work import WorkKind
from druid_ingest.wire import Request, seg

__all__ = ["DropPlan", "build_drop_plan"]


@dataclass(frozen=True)
class DropPlan:
    """A valid drop of one interval. Build it with :func:`build_drop_plan`."""

    datasource: str
    intervals: tuple[str, ...]
    base_task_id: str
    peak_slots: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def kind(self) -> WorkKind:
        return "drop"

    @property
    def mode(self) -> str:
        return "DROP"

    @property
    def append(self) -> bool:
        return False

    @property
    def probes_input(self) -> bool:
        return False

    @property
    def publishes(self) -> bool:
        return False

    @property
    def runs_task(self) -> bool:
        return False  # one request: nothing to adopt, nothing to wait for but the unloading

    @property
    def task_spec(self) -> None:
        return None

    def describe(self) -> str:
        return (f"DROP {', '.join(self.intervals)} of {self.datasource!r}: mark its segments unused, so Druid stops "
                f"serving them (deep storage keeps them until a kill); name {self.base_task_id}")

    @property
    def wants_served(self) -> bool:
        return False  # green once nothing in the interval is served

    def submit_request(self, task_id: str) -> Request:
        """The Overlord's ``markUnused`` for the interval (``task_id`` only names the drop in logs)."""
        return self.write_request(OVERLORD_API)

    def write_request(self, api: SegmentWriteApi) -> Request:
        """``markUnused`` of the interval through ``api`` (the same body on both services)."""
        path = api.path(seg(self.datasource, 'datasource'), "markUnused")
        return Request("POST", api.service, path, json_body={"interval": self.intervals[0]})


def build_drop_plan(datasource: str, interval: str, *, idempotency_key: str | None = None) -> DropPlan:
    """Check a drop of ``interval`` of ``datasource`` (no HTTP); every problem named with its field."""
    problems, _ = one_interval_problems(datasource, interval, purpose="to drop from")
    if problems:
        raise SpecValidationError(problems, subject="drop request")
    canonical = canonical_interval(interval)
    name = base_task_id({"type": "drop", "dataSource": datasource, "interval": canonical}, datasource, [canonical],
                        idempotency_key, "drop")
    return DropPlan(datasource, (canonical,), name)
