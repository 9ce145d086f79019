"""Fake ``POST /druid/indexer/v1/sampler`` (druid-contract §sampler), answering as Druid 33 does (RECORDED.md §15).

The rows it "reads" are the ones the next task would ingest: the next :class:`~.fake_tasks.TaskPlan` queued with
``plan_next_task`` (else the default plan), ``rows_per_bucket`` good rows per segment-granularity bucket of the
spec's intervals, then ``unparseable`` bad ones. So ``TaskPlan(rows_per_bucket=0)`` is an empty input both for
the sampler (0 rows read) and for the task (tombstones). Faults apply as on every route (``fake_faults``).
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from druid_ingest.testing.fake_http import Ctx, empty, json_response, legacy_error, require_write
from druid_ingest.testing.fake_tasks import TaskPlan, jackson_syntax_error
from druid_ingest.testing.fake_time import buckets, format_instant, normalize_granularity, parse_interval

__all__ = ["ROUTES", "post_sampler"]

_SPEC_CLASS = "org.apache.druid.indexing.overlord.sampler.IndexTaskSamplerSpec"
_CONFIG_CLASS = "org.apache.druid.indexing.overlord.sampler.SamplerConfig"
# The input source type ids of a Druid 33 Overlord without cloud extensions (RECORDED.md §15).
_SOURCES = ["combining", "druid", "generator", "http", "inline", "local", "sql"]
_MAX_ROWS = 5000
_DEFAULT_ROWS = 200


def _unknown_type(type_id: str, base: str, known: list[str], prop: str = "") -> web.Response:
    where = f" (for POJO property '{prop}')" if prop else ""
    return legacy_error(400, f"Please make sure to load all the necessary extensions and jars with type '{type_id}' "
                             f"on 'druid/coordinator' service. Could not resolve type id '{type_id}' as a subtype of "
                             f"`{base}` known type ids = [{', '.join(known)}]{where}")


def _problem(cls: str, message: str) -> web.Response:
    return legacy_error(400, f"Cannot construct instance of `{cls}`, problem: {message}")


def _bucket_count(schema: dict[str, Any]) -> int:
    granularity = schema.get("granularitySpec") or {}
    try:
        intervals = [parse_interval(str(i)) for i in granularity.get("intervals") or []]
        return max(len(buckets(intervals, normalize_granularity(granularity.get("segmentGranularity", "DAY")))), 1)
    except ValueError:
        return 1


def _kept_intervals(node: Any) -> list[tuple[int, int]]:
    """The ``interval`` filters on ``__time`` in a transformSpec filter (at its top or under ``and``)."""
    if not isinstance(node, dict):
        return []
    if node.get("type") == "and":
        return [span for field in node.get("fields") or [] for span in _kept_intervals(field)]
    if node.get("type") == "interval" and node.get("dimension") == "__time":
        try:
            return [parse_interval(str(i)) for i in node.get("intervals") or []]
        except ValueError:
            return []
    return []


def _rows(plan: TaskPlan, schema: dict[str, Any], num_rows: int) -> tuple[int, int, list[dict[str, Any]]]:
    good = max(plan.rows_per_bucket, 0) * _bucket_count(schema)
    kept = _kept_intervals((schema.get("transformSpec") or {}).get("filter"))
    if plan.rows_outside and kept:
        good = 0  # Druid 33's sampler skips filtered rows without counting them (numRowsRead excludes them)
    indexed = min(good, num_rows)
    bad = min(max(plan.unparseable, 0), num_rows - indexed)
    start = (schema.get("granularitySpec") or {}).get("intervals") or []
    t0 = parse_interval(str(start[0]))[0] if start else 0
    if plan.rows_outside:
        t0 -= 86_400_000  # the day before: the sampler does not filter by the spec's intervals (Druid 33)
    column = str((schema.get("timestampSpec") or {}).get("column") or "timestamp")
    data: list[dict[str, Any]] = [
        {"input": {column: format_instant(t0 + i)}, "parsed": {"__time": t0 + i}} for i in range(indexed)
    ]
    data += [
        {"input": {"x": i}, "unparseable": True,
         "error": f"Timestamp[null] is unparseable! Event: {{x={i}}} (Line: {indexed + i + 1})"}
        for i in range(bad)
    ]
    return indexed + bad, indexed, data


async def post_sampler(ctx: Ctx) -> web.Response:
    ctype = next((v for k, v in ctx.rec.headers.items() if k.lower() == "content-type"), "")
    if ctype and ctype.split(";")[0].strip().lower() != "application/json":
        return empty(415)
    text = ctx.rec.body.decode("utf-8", "replace")
    try:
        body = json.loads(text or "null")
    except json.JSONDecodeError:
        return legacy_error(400, jackson_syntax_error(text))
    if not isinstance(body, dict):
        return legacy_error(400, "Request body cannot be empty")
    kind = body.get("type")
    if kind != "index":  # SamplerModule registers only "index" (RECORDED.md §15: index_parallel is refused)
        return _unknown_type(str(kind), "org.apache.druid.client.indexing.SamplerSpec", ["index"])
    spec = body.get("spec")
    if not isinstance(spec, dict):
        return _problem(_SPEC_CLASS, "[spec] is required")
    io = spec.get("ioConfig") or {}
    source = io.get("inputSource")
    if not isinstance(source, dict):
        return _problem(_SPEC_CLASS, "[spec.ioConfig.firehose] is required")
    if source.get("type") not in _SOURCES:
        return _unknown_type(str(source.get("type")), "org.apache.druid.data.input.InputSource", _SOURCES,
                             "inputSource")
    config = body.get("samplerConfig") or {}
    num_rows = config.get("numRows", _DEFAULT_ROWS)
    if not isinstance(num_rows, int) or num_rows > _MAX_ROWS:
        return _problem(_CONFIG_CLASS, f"numRows must be <= {_MAX_ROWS}")
    require_write(ctx)  # SamplerResource: StateResourceFilter, a POST needs STATE WRITE
    with ctx.state.lock:
        plan = ctx.state.plans[0] if ctx.state.plans else ctx.state.default_plan
    read, indexed, data = _rows(plan, spec.get("dataSchema") or {}, max(num_rows, 0))
    return json_response({"numRowsRead": read, "numRowsIndexed": indexed, "data": data})


ROUTES = [("POST", r"/druid/indexer/v1/sampler", post_sampler)]
