"""Pure builders and parsers for the segment endpoints the handoff gate reads: the metadata store and served
inventory on the Coordinator, the Broker's query candidates (druid-contract §handoff). Re-exported by
``endpoints``, the one face for every endpoint.
"""

from __future__ import annotations

from druid_ingest.api._jsonvalues import as_int, as_str
from druid_ingest.api._models import DataServer, Segment, segment_interval, segment_version
from druid_ingest.wire import Request, Response, raise_for_status, seg

__all__ = [
    "COORD",
    "broker_candidates",
    "data_servers",
    "handoff_complete",
    "parse_broker_candidates",
    "parse_data_servers",
    "parse_handoff_complete",
    "parse_served_segments",
    "parse_used_segments",
    "served_segments",
    "used_segments",
]

COORD = "/druid/coordinator/v1"


# ---- Coordinator (druid-contract §handoff) --------------------------------------------------------------------------


def used_segments(datasource: str, intervals: list[str]) -> Request:
    """Used segments overlapping ``intervals``, overshadowed included, read from the metadata store."""
    return Request(
        "POST",
        "coordinator",
        f"{COORD}/metadata/datasources/{seg(datasource, 'datasource')}/segments",
        params=(("full", "true"),),
        json_body=list(intervals),
    )


def parse_used_segments(resp: Response, req: Request) -> list[Segment]:
    """204 (older Druid) and a bare 404 mean no used segments; a 404 *page* (Jetty's or a proxy's HTML) means the
    endpoint is not there (wrong Coordinator URL, a Router without the management proxy): DruidNotFoundError, not
    an empty answer the gate would wait on until its timeout."""
    if resp.status == 204 or (resp.status == 404 and not resp.is_html):
        return []
    raise_for_status(resp, req)
    data = resp.json()
    return [Segment.from_druid(s) for s in data if isinstance(s, dict)] if isinstance(data, list) else []


def served_segments(datasource: str, interval: str) -> Request:
    """Ids of the segments in the server inventory inside ``interval`` (``getServedSegmentsInInterval`` without
    ``full``: a JSON array of ids, a few KB for a day of hourly segments instead of their whole metadata)."""
    return Request(
        "GET",
        "coordinator",
        f"{COORD}/datasources/{seg(datasource, 'datasource')}/intervals/{seg(interval.replace('/', '_'), 'interval')}",
    )


def parse_served_segments(resp: Response, req: Request) -> set[str]:
    """A list of ids, or ``{interval: {segmentId: {metadata, servers}}}`` with ``full``; 204 means nothing served."""
    if resp.status == 204 or not resp.body.strip():
        return set()
    raise_for_status(resp, req)
    data = resp.json()
    served: set[str] = set()
    if isinstance(data, list):  # ids only: every listed segment is in the server inventory
        return {str(sid) for sid in data if isinstance(sid, str)}
    if isinstance(data, dict):
        for per_interval in data.values():
            if isinstance(per_interval, dict):
                served.update(
                    sid for sid, info in per_interval.items() if not isinstance(info, dict) or info.get(
                        "servers", [True]
                    )
                )
    return served


def parse_segment_update(resp: Response, req: Request) -> int:
    """``SegmentUpdateResponse`` ``{"numChangedSegments": n}`` of a segment write (markUnused, markUsed): how many
    segments it changed (0 when none was in the other state)."""
    raise_for_status(resp, req)
    data = resp.json() if resp.body.strip() else {}
    return as_int(data.get("numChangedSegments")) or 0 if isinstance(data, dict) else 0


def handoff_complete(datasource: str, segment: Segment) -> Request:
    return Request(
        "GET",
        "coordinator",
        f"{COORD}/datasources/{seg(datasource, 'datasource')}/handoffComplete",
        params=(
            ("interval", segment.interval),
            ("partitionNumber", str(segment.partition_num)),
            ("version", segment.version),
        ),
    )


def parse_handoff_complete(resp: Response, req: Request) -> bool:
    raise_for_status(resp, req)
    return resp.text.strip() == "true"


def data_servers() -> Request:
    """The servers the Coordinator knows to hold segments (Druid's ``ServersResource``, STATE READ)."""
    return Request("GET", "coordinator", f"{COORD}/servers", params=(("simple", ""),))


def parse_data_servers(resp: Response, req: Request) -> list[DataServer]:
    """``[{"host", "tier", "type", "priority", "currSize", "maxSize"}, ...]``; entries that are not objects are
    skipped (the note this feeds is a courtesy)."""
    raise_for_status(resp, req)
    body = resp.json()
    entries = body if isinstance(body, list) else []
    return [DataServer(as_str(e.get("host")) or "?", as_str(e.get("type")) or "", as_str(e.get("tier")) or "",
                       as_int(e.get("currSize")) or 0, as_int(e.get("maxSize")) or 0)
            for e in entries if isinstance(e, dict)]


# ---- Broker -------------------------------------------------------------------------------------


def broker_candidates(datasource: str, intervals: list[str]) -> Request:
    """What the Broker's own timeline would query for ``intervals`` (ClientInfoResource ``candidates``)."""
    return Request(
        "GET",
        "broker",
        f"/druid/v2/datasources/{seg(datasource, 'datasource')}/candidates",
        params=(("intervals", ",".join(intervals)),),
    )


def parse_broker_candidates(resp: Response, req: Request) -> list[Segment]:
    """Visible, non-tombstone segments the Broker can route to (entries without a server location dropped)."""
    raise_for_status(resp, req)
    data = resp.json()
    found = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict) and item.get("interval") and item.get("version") and item.get("locations"):
            found.append(
                Segment(
                    segment_id="",
                    interval=segment_interval(item["interval"], "Broker candidate"),
                    version=segment_version(item["version"], "Broker candidate"),
                    partition_num=as_int(item.get("partitionNumber")) or 0,
                    size=as_int(item.get("size")) or 0,
                )
            )
    return found
