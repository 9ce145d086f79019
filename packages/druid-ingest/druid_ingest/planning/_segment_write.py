"""The seam of the kinds that are no task: one request to Druid's segment write API, then a wait for a served state.

A drop (``markUnused``: nothing in the interval served) is one; the operation (``ops/_segment_write.py``), the
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
from typing import Literal, Protocol

from druid_ingest.planning._versions import druid_release
from druid_ingest.planning._work import Plan
from druid_ingest.wire import Request

__all__ = ["OVERLORD_API", "SegmentWrite", "SegmentWriteApi", "SegmentWritePlan", "segment_write_api"]

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

    def write_request(self, api: SegmentWriteApi) -> Request:
        """The one request through ``api`` (the same body on both services)."""
        ...


class SegmentWritePlan(Plan, SegmentWrite, Protocol):
    """A plan whose work is one segment write (``runs_task`` False): what the generic faces take."""
