"""Fuzz: used segments (metadata store; ``Segment.from_druid``), served inventory, Broker candidates, and the handoff
gate built on them."""

from __future__ import annotations

from typing import Any

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.api._models import HandoffTarget, Segment
from druid_ingest.errors import DruidError
from druid_ingest.ops.gate.verdict import broker_lag, chunk_targets, evaluate, required_segments, span_of
from druid_ingest.wire._http import Response

from .gen import any_json, dicts, field, integers, just, lists, one_of, sampled, seeded, text, tuples
from .harness import fuzz, guarded
from .shapes import candidates_body, segment, served_body
from .strategies import instants, response

pytestmark = pytest.mark.fuzz

_DAY = "2026-07-16T00:00:00.000Z/2026-07-17T00:00:00.000Z"
_BOOL = sampled([True, False])
targets = tuples(sampled(["2026-07-16T00:00:00.000Z", "1970-01-01T00:00:00.000Z"]), _BOOL,
                 one_of(just(None), integers(0, 3)), one_of(just(None), instants)).map(
    lambda t: HandoffTarget("t1", "wiki", (_DAY,), t[0], append=t[1], segments_published=t[2], version_ceiling=t[3]))


def _gate(target: HandoffTarget, used: list[Segment], served: set[str], candidates: list[Segment]) -> None:
    """The gate's pure half on parsed answers: typed errors only, like the parsers."""
    def run() -> None:
        chunks = chunk_targets(target, used)
        required = required_segments(chunks)
        result = evaluate(target, chunks, served)
        result.to_dict()
        if required:
            span_of(required)
            broker_lag(chunks, candidates)

    guarded(run)


def test_fuzz_used_segments_and_gate() -> None:
    def check(case: tuple[Response, HandoffTarget, Any]) -> None:
        resp, target, served_ids = case
        used: Any = guarded(lambda: ep.parse_used_segments(resp, ep.used_segments("wiki", [_DAY])))
        if isinstance(used, DruidError):
            return
        ids = {s.segment_id for s in used}
        _gate(target, used, ids if served_ids else set(), [])

    # DataSegment objects as Druid writes them, mutated; and objects of any shape (another version's, a proxy's)
    odd = dicts(text(10), any_json, 4)
    used = response(one_of(lists(field(segment), 4), lists(one_of(segment, odd), 3), any_json), method="POST")
    fuzz("used_segments+gate", seeded(tuples(used, targets, _BOOL)), check)


def test_fuzz_served_inventory() -> None:
    def check(resp: Response) -> None:
        served: Any = guarded(lambda: ep.parse_served_segments(resp, ep.served_segments("wiki", _DAY)))
        if not isinstance(served, DruidError):
            assert isinstance(served, set) and all(isinstance(s, str) for s in served)

    fuzz("served_inventory", seeded(response(served_body)), check)


def test_fuzz_broker_candidates() -> None:
    def check(case: tuple[Response, HandoffTarget]) -> None:
        resp, target = case
        found: Any = guarded(lambda: ep.parse_broker_candidates(resp, ep.broker_candidates("wiki", [_DAY])))
        if isinstance(found, DruidError):
            return
        _gate(target, found, {s.segment_id for s in found}, found)

    fuzz("broker_candidates", seeded(tuples(response(candidates_body), targets)), check)
