"""Fake Coordinator route handlers: ``/druid/coordinator/v1/*`` (druid-contract §handoff)."""

from __future__ import annotations

import copy
import json

from aiohttp import web

from druid_ingest.testing import fake_overlord
from druid_ingest.testing import fake_versions as versions
from druid_ingest.testing.fake_http import Ctx, empty, json_response, legacy_error, require_write, text_response
from druid_ingest.testing.fake_segments import DEFAULT_RULES, DEFAULT_TIER, HISTORICAL, FakeSegment, overshadowed_ids
from druid_ingest.testing.fake_time import DAY_MS, contains, format_interval, overlaps, parse_interval

__all__ = [
    "ROUTES",
    "V1",
    "get_all_rules",
    "get_cluster_loadstatus",
    "get_datasources",
    "get_ds_loadstatus",
    "get_handoff_complete",
    "get_is_leader",
    "get_metadata_segments",
    "get_rules",
    "get_served_in_interval",
    "get_served_segments",
    "get_servers",
    "post_metadata_segments",
    "post_rules",
    "post_segment_update",
]

V1 = "/druid/coordinator/v1"
_DS = r"(?P<ds>[^/]+)"


def _sorted(segs: list[FakeSegment]) -> list[FakeSegment]:
    return sorted(segs, key=lambda s: (s.interval, s.version, s.partition_num))


def _segments_body(segs: list[FakeSegment], full: bool) -> list:
    return [s.to_json() if full else s.identifier for s in _sorted(segs)]


async def get_is_leader(ctx: Ctx) -> web.Response:
    return json_response({"leader": True})


async def post_metadata_segments(ctx: Ctx) -> web.Response:
    """druid-contract §handoff: POST metadata/datasources/{ds}/segments: metadata store directly,
    INCLUDING_OVERSHADOWED, fresh."""
    try:
        raw = json.loads(ctx.rec.body.decode("utf-8") or "null")
        intervals = [parse_interval(str(i)) for i in raw]
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        return legacy_error(400, f"Invalid intervals: {exc}")
    if not intervals:
        return legacy_error(500, "null/empty intervals")  # body text unverified
    with ctx.state.lock:
        ctx.state.now()
        segs = [s for s in ctx.state.used(ctx.params["ds"]) if any(overlaps(s.interval, i) for i in intervals)]
        return json_response(_segments_body(segs, "full" in ctx.query))  # unknown datasource -> 200 []


async def get_metadata_segments(ctx: Ctx) -> web.Response:
    """druid-contract §handoff: GET metadata/datasources/{ds}/segments: the cached snapshot (lags a poll); unknown ->
    404."""
    with ctx.state.lock:
        ctx.state.now()
        segs = ctx.state.snapshot_used(ctx.params["ds"])
        if not segs:
            return empty(404)
        return json_response(_segments_body(segs, "full" in ctx.query))


async def get_served_segments(ctx: Ctx) -> web.Response:
    """druid-contract §handoff: GET datasources/{ds}/segments: served segments; datasource not served -> 204."""
    with ctx.state.lock:
        ctx.state.now()
        segs = ctx.state.served(ctx.params["ds"])
        if not segs:
            return empty(204)
        return json_response(_segments_body(segs, "full" in ctx.query))


async def get_served_in_interval(ctx: Ctx) -> web.Response:
    """DataSourcesResource.getServedSegmentsInInterval: served segments whose interval the query interval
    *contains*, keyed by segment interval (start then end, descending); datasource not served -> 204.
    Without an interval in the path: all served intervals (a list unless ``simple``/``full``)."""
    try:
        wanted = parse_interval(ctx.params["interval"]) if "interval" in ctx.params else None
    except ValueError as exc:
        return legacy_error(400, str(exc))
    with ctx.state.lock:
        ctx.state.now()
        served = ctx.state.served(ctx.params["ds"])
        if not served:
            return empty(204)
        inside = [s for s in _sorted(served) if wanted is None or contains(wanted, s.interval)]
        if "simple" not in ctx.query and "full" not in ctx.query:
            if wanted is None:
                return json_response([format_interval(i) for i in sorted({s.interval for s in inside},
                                                                         reverse=True)])
            return json_response([s.identifier for s in inside])
        keys = sorted({s.interval for s in inside}, reverse=True)
        body: dict[str, dict] = {format_interval(k): {} for k in keys}
        for seg in inside:
            entry = body[format_interval(seg.interval)]
            if "full" in ctx.query:
                entry[seg.identifier] = {"metadata": seg.to_json(), "servers": [HISTORICAL]}
            else:
                entry["size"] = entry.get("size", 0) + seg.size
                entry["count"] = entry.get("count", 0) + 1
        return json_response(body)


async def get_handoff_complete(ctx: Ctx) -> web.Response:
    """druid-contract §handoff: handoffComplete?interval=&partitionNumber=&version= -> true/false (500 {"error"} on
    exception)."""
    q = ctx.query
    try:
        interval = parse_interval(q["interval"])
        partition = int(q["partitionNumber"])
        version = q["version"]
    except (KeyError, ValueError) as exc:
        return legacy_error(500, f"Invalid handoffComplete request: {exc}")
    with ctx.state.lock:
        ctx.state.now()
        return json_response(ctx.state.handoff_complete(ctx.params["ds"], interval, partition, version))


def _load_counts(ctx: Ctx, segs: list[FakeSegment]) -> tuple[int, int, int]:
    """-> (total, unavailable, missing replicas). One historical holds at most one copy, so with the default
    rule's 2 replicas every loaded segment still misses one (Druid 33, RECORDED.md §9: `full` -> 24 for 24
    loaded segments; right after loading, before the next coordinator run, real Druid can report 2 per segment)."""
    unavailable = [s for s in segs if s.served_at is None]
    under = sum(max(ctx.state.replicas(s) - (s.served_at is not None), 0) for s in segs)
    return len(segs), len(unavailable), under


async def get_ds_loadstatus(ctx: Ctx) -> web.Response:
    """druid-contract §handoff DataSourcesResource.getDatasourceLoadstatus."""
    q, ds = ctx.query, ctx.params["ds"]
    if q.get("forceMetadataRefresh") is None:
        # Druid 33 (RECORDED.md §9): plain text under Content-Type: application/json.
        return text_response("Invalid request. forceMetadataRefresh must be specified", 400,
                             content_type="application/json")
    force = q["forceMetadataRefresh"].lower() == "true"
    with ctx.state.lock:
        now = ctx.state.now()
        try:
            now_ms = int(now * 1000)
            interval = parse_interval(q["interval"]) if q.get("interval") else (now_ms - 14 * DAY_MS, now_ms)
        except ValueError as exc:
            return legacy_error(400, str(exc))
        # forceMetadataRefresh=true reads fresh metadata; false the poll-lagged snapshot.
        used = ctx.state.used(ds) if force else ctx.state.snapshot_used(ds)
        if not used:
            return empty(204)  # unknown datasource -> 204, not 404
        shadowed = overshadowed_ids(used)  # used, non-overshadowed only
        segs = [s for s in used if s.identifier not in shadowed and overlaps(s.interval, interval)]
        if not segs:
            # Druid 33 (RECORDED.md §9): a known datasource without used segments in the interval -> 200 and
            # plain text under Content-Type: application/json (Druid's docs say 204).
            return text_response("No used segment found for the given datasource and interval", 200,
                                 content_type="application/json")
        total, unavailable, under = _load_counts(ctx, segs)
    if "simple" in q:
        return json_response({ds: unavailable})
    if "full" in q:
        return json_response({DEFAULT_TIER: {ds: under}})
    return json_response({ds: 100.0 * (total - unavailable) / total})


async def get_cluster_loadstatus(ctx: Ctx) -> web.Response:
    """druid-contract §handoff cluster-wide loadstatus: cached snapshot, all used segments INCLUDING overshadowed."""
    with ctx.state.lock:
        ctx.state.now()
        by_ds: dict[str, list[FakeSegment]] = {}
        for seg in ctx.state.snapshot_used():
            by_ds.setdefault(seg.datasource, []).append(seg)
        counts = {ds: _load_counts(ctx, segs) for ds, segs in sorted(by_ds.items())}
    if "simple" in ctx.query:
        return json_response({ds: c[1] for ds, c in counts.items()})
    if "full" in ctx.query:
        return json_response({DEFAULT_TIER: {ds: c[2] for ds, c in counts.items()}})
    return json_response({ds: 100.0 * (c[0] - c[1]) / c[0] for ds, c in counts.items()})


async def get_datasources(ctx: Ctx) -> web.Response:
    with ctx.state.lock:
        ctx.state.now()
        return json_response(sorted({s.datasource for s in ctx.state.segments if s.served_at is not None}))


async def get_servers(ctx: Ctx) -> web.Response:
    """Druid's ServersResource: host names, or with ``simple`` one object per data server (Druid 33, seen on
    dev/druid: the Indexer as ``indexer-executor`` with maxSize 0, then each Historical)."""
    with ctx.state.lock:
        ctx.state.now()
        held = sum(s.size for s in ctx.state.segments if s.served_at is not None)
        count = ctx.state.historicals
    servers = [{"host": "127.0.0.1:8091", "tier": DEFAULT_TIER, "type": "indexer-executor", "priority": 0,
                "currSize": 0, "maxSize": 0}]
    for n in range(count):
        host = HISTORICAL if n == 0 else f"127.0.0.1:{8083 + 100 * n}"
        servers.append({"host": host, "tier": DEFAULT_TIER, "type": "historical", "priority": 0,
                        "currSize": held // count, "maxSize": 20_000_000_000})
    return json_response(servers if "simple" in ctx.query else [s["host"] for s in servers])


async def get_rules(ctx: Ctx) -> web.Response:
    ds = ctx.params["ds"]
    with ctx.state.lock:
        rules = copy.deepcopy(ctx.state.rules.get(ds, []))
    # getRules(ds, full): full -> datasource rules followed by the cluster defaults.
    return json_response([*rules, *copy.deepcopy(DEFAULT_RULES)] if "full" in ctx.query else rules)


async def get_all_rules(ctx: Ctx) -> web.Response:
    with ctx.state.lock:
        body = copy.deepcopy(ctx.state.rules)
    body["_default"] = copy.deepcopy(DEFAULT_RULES)
    return json_response(body)


async def post_rules(ctx: Ctx) -> web.Response:
    require_write(ctx)
    try:
        rules = json.loads(ctx.rec.body.decode("utf-8") or "null")
        assert isinstance(rules, list)
    except (ValueError, AssertionError, UnicodeDecodeError):
        return legacy_error(400, "Rules must be a JSON array")
    ctx.state.set_rules(ctx.params["ds"], rules)
    return empty(200)


async def post_segment_update(ctx: Ctx) -> web.Response:
    """``DataSourcesResource``'s segment updates (``fake_overlord.SEGMENT_UPDATES``): through Druid 33 it updates
    (answering as the Overlord does from 32, when it forwards there: apache/druid #17545); from Druid 34 it only
    redirects to the Overlord's path (#17935, #17999), modelled as Druid's ``RedirectFilter`` redirects: 307 with
    the Overlord's URL in Location."""
    if versions.coordinator_redirects_segment_writes(ctx.fake.version):
        ds, action = ctx.rec.raw_path.rsplit("/", 2)[-2:]
        target = f"{ctx.fake.url}{fake_overlord.V1}/datasources/{ds}/{action}"
        return web.Response(status=307, headers={"Location": target})
    legacy = not versions.overlord_serves_segment_writes(ctx.fake.version)
    return fake_overlord.segment_update(ctx, legacy=legacy)


ROUTES = [
    ("GET", rf"{V1}/isLeader", get_is_leader),
    ("GET", rf"{V1}/loadstatus", get_cluster_loadstatus),
    ("GET", rf"{V1}/datasources", get_datasources),
    ("GET", rf"{V1}/datasources/{_DS}/loadstatus", get_ds_loadstatus),
    ("GET", rf"{V1}/datasources/{_DS}/handoffComplete", get_handoff_complete),
    ("GET", rf"{V1}/datasources/{_DS}/segments", get_served_segments),
    ("GET", rf"{V1}/datasources/{_DS}/intervals", get_served_in_interval),
    ("GET", rf"{V1}/datasources/{_DS}/intervals/(?P<interval>[^/]+)", get_served_in_interval),
    ("GET", rf"{V1}/metadata/datasources/{_DS}/segments", get_metadata_segments),
    ("POST", rf"{V1}/metadata/datasources/{_DS}/segments", post_metadata_segments),
    ("GET", rf"{V1}/servers", get_servers),
    ("POST", rf"{V1}/datasources/{_DS}/{fake_overlord.SEGMENT_UPDATE_ACTION}", post_segment_update),
    ("GET", rf"{V1}/rules", get_all_rules),
    ("GET", rf"{V1}/rules/{_DS}", get_rules),
    ("POST", rf"{V1}/rules/{_DS}", post_rules),
]
