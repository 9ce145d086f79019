"""Dropping one interval of a datasource (marking its segments unused) as a :class:`~druid_ingest.planning.Plan`.

The retention step before a kill: Druid stops serving the interval (the Coordinator unloads its segments, the
Broker stops routing to them) but keeps them in deep storage until a kill. Druid 33 already serves the segment
write APIs on the Overlord (``OverlordDataSourcesResource``: ``POST /druid/indexer/v1/datasources/{ds}/markUnused``),
whose javadoc calls the Coordinator's copies deprecated; it arrived in Druid 32 (apache/druid #17545), and from
Druid 34 the Coordinator's copies only redirect to it (#17935). Druid 31 and older serve only the Coordinator's
``POST /druid/coordinator/v1/datasources/{ds}/markUnused``, so the drop picks the API by the version ``/status``
reports (:func:`segment_write_api`). It marks only segments *contained* in the interval
(``markSegmentsWithinIntervalAsUnused``); the drop operation refuses an interval that cuts a segment, which would
stay served.

It is not a task: nothing to adopt, and a retry re-sends a request that changes nothing the second time
(:attr:`DropPlan.runs_task` is False). Its gate waits until nothing in the interval is served (``ops/_drop.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from druid_ingest.planning._ids import base_task_id, canonical_interval
from druid_ingest.planning._one_interval import one_interval_problems
from druid_ingest.planning._versions import druid_release
from druid_ingest.planning._work import WorkKind
from druid_ingest.wire import Request, SpecValidationError, seg

__all__ = ["DropPlan", "SegmentWriteApi", "build_drop_plan", "segment_write_api"]

#: the Overlord's segment write API (``OverlordDataSourcesResource``, Druid 32 and later)
OVERLORD_DATASOURCES = "/druid/indexer/v1/datasources"
#: the Coordinator's (``DataSourcesResource``): the only one before Druid 32, a redirect to the Overlord's from 34
COORDINATOR_DATASOURCES = "/druid/coordinator/v1/datasources"
#: the first release whose Overlord serves the segment write APIs (apache/druid #17545)
OVERLORD_SEGMENT_WRITES_SINCE = 32


@dataclass(frozen=True)
class SegmentWriteApi:
    """Where a markUnused goes, and why (the drop logs :meth:`describe`, so a run shows what it picked)."""

    service: Literal["overlord", "coordinator"]
    base: str
    reason: str

    def describe(self, version: str | None, where: str) -> str:
        """``Druid 31.0.2 at http://…: marking unused through the Coordinator's API (…)``."""
        if druid_release(version) is None:
            return f"Druid at {where} reports version {version!r}, not a release number: {self.reason}"
        return f"Druid {version} at {where}: {self.reason}"


#: the Overlord's API: every release since 32, and the pick when the version is unknown
OVERLORD_API = SegmentWriteApi("overlord", OVERLORD_DATASOURCES,
                               "marking unused through the Overlord's API (Druid 32 and later)")


def segment_write_api(version: str | None) -> SegmentWriteApi:
    """The markUnused API for the Druid ``version`` reports: the Overlord's from Druid 32, the Coordinator's before.
    A version that does not parse (``""``, ``"33"``) picks the Overlord's: every release since 32 serves it, and a
    cluster too old for it answers 404 naming the path, rather than a wrong guess marking through a redirect."""
    release = druid_release(version)
    if release is None or release[0] >= OVERLORD_SEGMENT_WRITES_SINCE:
        return OVERLORD_API
    return SegmentWriteApi("coordinator", COORDINATOR_DATASOURCES, "marking unused through the Coordinator's API "
                           "(the Overlord's arrived in Druid 32)")


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

    def submit_request(self, task_id: str) -> Request:
        """The Overlord's ``markUnused`` for the interval (``task_id`` only names the drop in logs)."""
        return self.mark_unused_request(OVERLORD_API)

    def mark_unused_request(self, api: SegmentWriteApi) -> Request:
        """``markUnused`` of the interval through ``api`` (the same body on both services)."""
        path = f"{api.base}/{seg(self.datasource, 'datasource')}/markUnused"
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
