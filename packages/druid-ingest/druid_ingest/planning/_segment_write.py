"""The seam of the kinds that are no task: one request to Druid's segment write API, then a wait for a served state.

A drop (``markUnused``: nothing in the interval served) is one; the operation (``ops/segment_write.py``), the
clients' ``segment_write`` and the Airflow and Dagster faces take any :class:`SegmentWritePlan`, so a new such kind
is its plan module and its registrations. What differs between kinds is only the request
(:meth:`SegmentWrite.write_request`) and the state the wait wants (:attr:`SegmentWrite.wants_served`).

Which API: Druid 33 already serves the segment write APIs on the Overlord (``OverlordDataSourcesResource``:
``POST /druid/indexer/v1/datasources/{ds}/markUnused``, ``/markUsed``), whose javadoc calls the Coordinator's copies
deprecated; it arrived in Druid 32 (apache/druid #17545), and from Druid 34 the Coordinator's copies only redirect
to it (#17935). Druid 31 and older serve only the Coordinator's ``/druid/coordinator/v1/datasources/{ds}/…``, so the
operation picks the API by the version ``/status`` reports (:func:`segment_write_api`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, Protocol

from druid_ingest.errors import SpecValidationError
from druid_ingest.planning._ids import base_task_id, canonical_interval
from druid_ingest.planning._one_interval import one_interval_problems
from druid_ingest.planning._versions import druid_release
from druid_ingest.planning._work import Plan
from druid_ingest.wire import Request, seg

__all__ = ["OVERLORD_API", "IntervalWrite", "SegmentWrite", "SegmentWriteApi", "SegmentWritePlan", "checked_interval",
           "segment_write_api"]

#: the Overlord's segment write API (``OverlordDataSourcesResource``, Druid 32 and later)
OVERLORD_DATASOURCES = "/druid/indexer/v1/datasources"
#: the Coordinator's (``DataSourcesResource``): the only one before Druid 32, a redirect to the Overlord's from 34
COORDINATOR_DATASOURCES = "/druid/coordinator/v1/datasources"
#: the first release whose Overlord serves the segment write APIs (apache/druid #17545)
OVERLORD_SEGMENT_WRITES_SINCE = 32


@dataclass(frozen=True)
class SegmentWriteApi:
    """Where a segment write goes, and why (the operation logs :meth:`describe`, so a run shows what it picked)."""

    service: Literal["overlord", "coordinator"]
    base: str
    reason: str

    def describe(self, version: str | None, where: str, doing: str = "writing") -> str:
        """``Druid 31.0.2 at http://…: marking unused through the Coordinator's API (…)`` (``doing``: what the
        write does, in the words of the state it wants)."""
        if druid_release(version) is None:
            return f"Druid at {where} reports version {version!r}, not a release number: {doing} {self.reason}"
        return f"Druid {version} at {where}: {doing} {self.reason}"

    def path(self, datasource_segment: str, action: str) -> str:
        """``<base>/<datasource>/<action>``; the datasource already escaped as one path segment."""
        return f"{self.base}/{datasource_segment}/{action}"


#: the Overlord's API: every release since 32, and the pick when the version is unknown
OVERLORD_API = SegmentWriteApi("overlord", OVERLORD_DATASOURCES,
                               "through the Overlord's API (Druid 32 and later)")


def segment_write_api(version: str | None) -> SegmentWriteApi:
    """The segment write API for the Druid ``version`` reports: the Overlord's from Druid 32, the Coordinator's
    before. A version that does not parse (``""``, ``"33"``) picks the Overlord's: every release since 32 serves it,
    and a cluster too old for it answers 404 naming the path, rather than a wrong guess writing through a redirect."""
    release = druid_release(version)
    if release is None or release[0] >= OVERLORD_SEGMENT_WRITES_SINCE:
        return OVERLORD_API
    return SegmentWriteApi("coordinator", COORDINATOR_DATASOURCES, "through the Coordinator's API "
                           "(the Overlord's arrived in Druid 32)")


class SegmentWrite(Protocol):
    """What the segment-write operation needs beyond :class:`Plan`: its one request and the state it waits for."""

    @property
    def wants_served(self) -> bool:
        """The state the wait after the request wants: False, nothing in the interval served (a drop); True, every
        used segment visible in the interval served and routed by the Broker."""
        ...

    @property
    def allow_empty(self) -> bool:
        """For a served state: whether an interval showing no data segment after the request is green (True) or
        refused (False, the default: ``DruidNothingToRestoreError``, since a query would read no row). An unserved
        state (a drop) has nothing to refuse: empty is its goal."""
        ...

    def write_request(self, api: SegmentWriteApi) -> Request:
        """The one request through ``api`` (the same body on both services)."""
        ...


class SegmentWritePlan(Plan, SegmentWrite, Protocol):
    """A plan whose work is one segment write (``runs_task`` False): what the generic faces take."""


@dataclass(frozen=True)
class IntervalWrite:
    """What every segment write of one interval shares (a drop, a restore): the plan's fields, no task, no probe,
    nothing published, and the one request (``ACTION`` of the interval, the same body on both services). A kind
    adds its ``kind``, ``mode``, ``wants_served``, ``describe()`` and ``ACTION``."""

    #: Druid's action, the last path segment of the request (``markUnused``, ``markUsed``)
    ACTION: ClassVar[str]

    datasource: str
    intervals: tuple[str, ...]
    base_task_id: str
    peak_slots: int = 0
    warnings: tuple[str, ...] = ()
    allow_empty: bool = False  # SegmentWrite.allow_empty: only a served state (a restore) reads it

    @property
    def append(self) -> bool:
        return False

    @property
    def probes_input(self) -> bool:
        return False

    @property
    def publishes(self) -> bool:
        return False  # no task publishes: the wait for the served state (wants_served) is the gate

    @property
    def runs_task(self) -> bool:
        return False  # one request: nothing to adopt, and a retry re-sends what changes nothing the second time

    @property
    def task_spec(self) -> None:
        return None

    def submit_request(self, task_id: str) -> Request:
        """The Overlord's request for the interval (``task_id`` only names the write in logs)."""
        return self.write_request(OVERLORD_API)

    def write_request(self, api: SegmentWriteApi) -> Request:
        """``ACTION`` of the interval through ``api`` (the same body on both services)."""
        path = api.path(seg(self.datasource, "datasource"), self.ACTION)
        return Request("POST", api.service, path, json_body={"interval": self.intervals[0]})


def checked_interval(kind: str, datasource: str, interval: str, idempotency_key: str | None, *,
                     purpose: str) -> tuple[str, str]:
    """The canonical interval and the deterministic name of a ``kind`` write of it (no HTTP); SpecValidationError
    naming each bad field (``purpose`` completes "the datasource ...")."""
    problems, _ = one_interval_problems(datasource, interval, purpose=purpose)
    if problems:
        raise SpecValidationError(problems, subject=f"{kind} request")
    canonical = canonical_interval(interval)
    name = base_task_id({"type": kind, "dataSource": datasource, "interval": canonical}, datasource, [canonical],
                        idempotency_key, kind)
    return canonical, name
