"""Fuzz: the spec validator and the plan built from a spec: a valid index_parallel spec with every field possibly
of another type or value, missing, or joined by unknown keys; also specs as Python dicts may hold (NaN, inf)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning._plan import build_plan
from druid_ingest.planning.spec import find_problems, find_warnings, spec_facts, validate_spec

from .gen import any_json, field, floats, integers, just, lists, mostly, obj, one_of, sampled, seeded, text
from .harness import fuzz, guarded
from .strategies import intervals

pytestmark = pytest.mark.fuzz
VALID: Counter[str] = Counter()

_TYPES = mostly(["index_parallel"], ["index", "index_hadoop", "noop", ""])
_GRAN = mostly(["DAY", "hour", "HOUR", "day"], one_of(
    sampled(["ALL", "NONE", "FIFTEEN_MINUTE", "WEEKLY", ""]),
    obj({"type": sampled(["period", "duration", "all", "none", "x"])},
        {"period": sampled(["P1D", "PT1H", "P", "PT" + "9" * 40 + "H"]), "duration": one_of(integers(-1, 10**20),
                                                                                         floats())})))
_DIMS = mostly([["page", "user"], ["page"], [], [{"name": "page", "type": "string"}, "user"]], lists(field(one_of(
    sampled(["page", "user", ""]), obj({"name": sampled(["page", "x"])}, {"type": sampled(["string", "long"])}))), 3))
_METRICS = mostly([[{"type": "count", "name": "n"}], [], [{"type": "longSum", "name": "v", "fieldName": "v"}]],
                  lists(field(obj({"type": sampled(["count", "longSum", "doubleSum", "x"]),
                                   "name": sampled(["n", "page"])},
                                  {"fieldName": sampled(["v", ""]), "expression": text(5)})), 2))
_PARTITIONS = obj({"type": mostly(["dynamic"], ["hashed", "range", "single_dim", "x"])},
                  {"maxRowsPerSegment": mostly([5_000_000], integers(-1, 10**7)),
                   "maxTotalRows": mostly([20_000_000], integers(-1, 10**7))})
#: perfect rollup: range (or single_dim/hashed, whose other keys then differ) and the keys each type reads
_RANGE_PARTITIONS = one_of(
    obj({"type": mostly(["range"], ["single_dim", "hashed"]), "partitionDimensions": mostly(
        [["page"], ["page", "user"]], lists(field(sampled(["page", ""])), 2)),
         "targetRowsPerSegment": mostly([5_000_000], integers(-1, 10**7))}),
    obj({"type": mostly(["single_dim"], ["range"]), "partitionDimension": mostly(["page"], ["", None]),
         "targetPartitionSize": mostly([5_000_000], integers())}),
    obj({"type": mostly(["hashed"], ["range"])}, {"numShards": integers(-1, 10),
                                                   "partitionDimensions": mostly([["page"]], [[""], "page"])}),
)
_INTERVALS = mostly([["2026-07-16/2026-07-17"], ["2026-07-16T00:00:00Z/P1D", "2026-07-18/2026-07-19"]],
                    lists(field(intervals), 3))
_DATA_SCHEMA = obj(
    {"dataSource": mostly(["wiki", "wiki 2", "w\u00e9"], ["", ".x", "a/b", "a\tb", "\ud800", "x" * 300]),
     "timestampSpec": obj({"column": mostly(["ts"], ["", None])}, {"format": just("iso")}),
     "granularitySpec": obj({"intervals": _INTERVALS}, {
         "type": mostly(["uniform"], ["arbitrary", "x"]), "segmentGranularity": _GRAN, "queryGranularity": _GRAN,
         "rollup": sampled([True, False])}),
     "dimensionsSpec": obj({"dimensions": _DIMS}), "metricsSpec": _METRICS},
)
_IO = obj({"type": _TYPES, "inputSource": obj({"type": mostly(["inline"], ["local", "s3", "druid", ""])},
                                               {"data": text(5)}),
           "inputFormat": obj({"type": mostly(["json"], ["csv", ""])}),
           "appendToExisting": mostly([False], [True]), "dropExisting": mostly([False, True], [True])})
_TUNING = one_of(
    obj({"type": _TYPES}, {"maxNumConcurrentSubTasks": mostly([1, 2, 4], integers(-1, 10**6)),
                           "partitionsSpec": _PARTITIONS, "maxRowsInMemory": integers(1, 10**6),
                           "maxSavedParseExceptions": integers(0, 4)}),
    obj({"type": _TYPES, "forceGuaranteedRollup": mostly([True], [False, "true"]), "partitionsSpec": _RANGE_PARTITIONS},
        {"maxNumConcurrentSubTasks": integers(1, 8), "totalNumMergeTasks": mostly([1, 4], integers(-1, 4))}),
)
_BODY = obj({"dataSchema": _DATA_SCHEMA, "ioConfig": _IO, "tuningConfig": _TUNING})
_CONTEXT = one_of(obj({}, {"priority": integers(0, 100), "x": any_json}), any_json)
_TASK = obj({"type": _TYPES, "spec": _BODY}, {"id": mostly(["ingest_1", "a b:c"], ["", ".", "a/b", "x" * 300, 7]),
                                              "context": _CONTEXT, "groupId": text(4)})
specs = one_of(_TASK, _TASK, _TASK, _TASK, _BODY, any_json)  # _BODY: a bare ingestion spec (templates use both)


def test_fuzz_spec_validator() -> None:
    def check(spec: Any) -> None:
        problems = find_problems(spec)  # never raises: it lists problems
        assert all(isinstance(p, SpecProblem) and str(p) for p in problems)
        find_warnings(spec)
        if isinstance(spec, dict):
            spec_facts(spec)
        outcome = guarded(lambda: validate_spec(spec))
        assert isinstance(outcome, SpecValidationError) == bool(problems)
        if not problems and isinstance(spec, dict):
            VALID["specs"] += 1
            guarded(lambda: build_plan(spec).describe())

    fuzz("spec_validator", seeded(specs), check)
    print(f"spec_validator: {VALID['specs']} of the generated specs were valid and went on to build_plan")
