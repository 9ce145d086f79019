"""Fake Broker routes: the Broker's own view of what a query over an interval would read.

``GET /druid/v2/datasources/{ds}/candidates?intervals=a/b[,c/d]`` (ClientInfoResource): the Broker's timeline
lookup over each interval, i.e. its *visible pieces*: where the newest complete version it sees served wins,
one entry per partition with that piece's clipped interval (a DAY segment with a later 05:00-06:00 replace
inside it is listed as 00-05 and 06-24). Druid 33 (checked on dev/druid): tombstones are never candidates, so
a piece held by a tombstone returns nothing, and overshadowed versions are not returned. A served segment
reaches the Broker's view ``FakeDruid.broker_lag`` seconds after the Historical loaded it (the announcement delay).
"""

from __future__ import annotations

from aiohttp import web

from druid_ingest.testing.fake_http import Ctx, json_response, legacy_error
from druid_ingest.testing.fake_segments import DEFAULT_TIER, HISTORICAL, FakeSegment, visible_pieces
from druid_ingest.testing.fake_time import format_interval, overlaps, parse_interval

__all__ = ["ROUTES", "get_candidates"]

_LOCATION = {"name": HISTORICAL, "host": HISTORICAL, "hostAndTlsPort": None, "maxSize": 20_000_000_000,
             "type": "historical", "tier": DEFAULT_TIER, "priority": 0}


def _candidate(seg: FakeSegment, piece: tuple[int, int]) -> dict:
    return {"interval": format_interval(piece), "version": seg.version, "partitionNumber": seg.partition_num,
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
        out = []
        for want in wanted:
            for piece, group in visible_pieces(seen, want):
                out.extend(_candidate(s, piece) for s in sorted(group, key=lambda s: s.partition_num)
                           if not s.is_tombstone)
        return json_response(out)


ROUTES = [
    ("GET", r"/druid/v2/datasources/(?P<ds>[^/]+)/candidates", get_candidates),
]
