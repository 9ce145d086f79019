"""Fake Broker routes: the Broker's own view of what a query over an interval would read.

``GET /druid/v2/datasources/{ds}/candidates?intervals=a/b[,c/d]`` (ClientInfoResource): per time chunk the
newest version the Broker sees served, one entry per partition with its server locations. Druid 33
(checked on dev/druid): tombstones are never candidates, so a chunk whose newest version is a tombstone
returns nothing, and overshadowed versions are not returned. A served segment reaches the Broker's view
``FakeDruid.broker_lag`` seconds after the Historical loaded it (the announcement delay).
"""

from __future__ import annotations

from collections import defaultdict

from aiohttp import web

from .fake_http import Ctx, json_response, legacy_error
from .fake_segments import DEFAULT_TIER, HISTORICAL, FakeSegment
from .fake_time import format_interval, overlaps, parse_interval

__all__ = ["ROUTES", "get_candidates"]

_LOCATION = {"name": HISTORICAL, "host": HISTORICAL, "hostAndTlsPort": None, "maxSize": 20_000_000_000,
             "type": "historical", "tier": DEFAULT_TIER, "priority": 0}


def _candidate(seg: FakeSegment) -> dict:
    return {"interval": format_interval(seg.interval), "version": seg.version, "partitionNumber": seg.partition_num,
            "size": seg.size, "locations": [dict(_LOCATION)]}


async def get_candidates(ctx: Ctx) -> web.Response:
    try:
        wanted = [parse_interval(i) for i in ctx.query.get("intervals", "").split(",") if i]
    except ValueError as exc:
        return legacy_error(400, str(exc))
    with ctx.state.lock:
        now = ctx.state.now()
        lag = ctx.fake.broker_lag
        seen = [s for s in ctx.state.served(ctx.params["ds"])
                if s.served_at is not None and s.served_at + lag <= now
                and any(overlaps(s.interval, w) for w in wanted)]
        by_chunk: dict[tuple[int, int], list[FakeSegment]] = defaultdict(list)
        for seg in seen:
            by_chunk[seg.interval].append(seg)
        out = []
        for chunk in sorted(by_chunk):
            newest = max(s.version for s in by_chunk[chunk])
            out.extend(_candidate(s) for s in sorted(by_chunk[chunk], key=lambda s: s.partition_num)
                       if s.version == newest and not s.is_tombstone)
        return json_response(out)


ROUTES = [
    ("GET", r"/druid/v2/datasources/(?P<ds>[^/]+)/candidates", get_candidates),
]
