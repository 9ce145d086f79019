"""Pre-flight validation: every problem with its path and what is valid; intervals; slots."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from druid_ingest.errors import SpecValidationError
from druid_ingest.planning.spec import (
    find_problems,
    find_warnings,
    parse_duration,
    parse_interval,
    spec_facts,
    task_slots,
    validate_spec,
)

from tests.druid_ingest.sample_specs import guide_spec

# The example spec of the integration guide this package implements (S3 input, range partitioning).
GUIDE_SPEC: dict[str, Any] = guide_spec()

DELETE = object()


def mutated(*changes: tuple[str, Any]) -> dict[str, Any]:
    """A deep copy of the guide spec with dotted-path changes applied (DELETE removes the key)."""
    spec = copy.deepcopy(GUIDE_SPEC)
    for path, value in changes:
        *parents, last = path.split(".")
        node = spec
        for key in parents:
            node = node[key]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
    return spec


DS = "spec.dataSchema"
IO = "spec.ioConfig"
TC = "spec.tuningConfig"
PS = "spec.tuningConfig.partitionsSpec"
GS = "spec.dataSchema.granularitySpec"

# (case id, spec, expected JSON path, text expected in the "valid" part)
MALFORMED: list[tuple[str, Any, str, str]] = [
    ("not-a-dict", ["index_parallel"], "$", "index_parallel"),
    ("missing-type", mutated(("type", DELETE)), "type", "index_parallel or index"),
    ("bad-type", mutated(("type", "index_parallle")), "type", "index_parallel or index"),
    ("missing-spec", mutated(("spec", DELETE)), "spec", "a JSON object"),
    ("spec-not-object", mutated(("spec", "x")), "spec", "a JSON object"),
    ("missing-dataSchema", mutated((f"{DS}", DELETE)), DS, "a JSON object"),
    ("missing-ioConfig", mutated((IO, DELETE)), IO, "a JSON object"),
    ("tuningConfig-not-object", mutated((TC, "dynamic")), TC, "a JSON object"),
    ("missing-dataSource", mutated((f"{DS}.dataSource", DELETE)), f"{DS}.dataSource", "datasource name"),
    ("empty-dataSource", mutated((f"{DS}.dataSource", "")), f"{DS}.dataSource", "non-empty"),
    ("slash-dataSource", mutated((f"{DS}.dataSource", "a/b")), f"{DS}.dataSource", "without '/'"),
    ("dot-dataSource", mutated((f"{DS}.dataSource", ".hidden")), f"{DS}.dataSource", "not starting with '.'"),
    ("tab-dataSource", mutated((f"{DS}.dataSource", "a\tb")), f"{DS}.dataSource", "plain spaces"),
    (
        "missing-ts-column",
        mutated((f"{DS}.timestampSpec", {"format": "iso"})),
        f"{DS}.timestampSpec.column",
        "input field",
    ),
    ("missing-dimensionsSpec", mutated((f"{DS}.dimensionsSpec", DELETE)), f"{DS}.dimensionsSpec", "JSON object"),
    (
        "bad-dimension-entry",
        mutated((f"{DS}.dimensionsSpec.dimensions", ["a", {"type": "long"}])),
        f"{DS}.dimensionsSpec.dimensions[1]",
        '"name"',
    ),
    (
        "duplicate-dimension",
        mutated((f"{DS}.dimensionsSpec.dimensions", ["a", "b", "a"])),
        f"{DS}.dimensionsSpec.dimensions[2]",
        "listed once",
    ),
    (
        "metric-without-name",
        mutated((f"{DS}.metricsSpec", [{"type": "count"}])),
        f"{DS}.metricsSpec[0].name",
        "output column",
    ),
    (
        "metric-without-type",
        mutated((f"{DS}.metricsSpec", [{"name": "rows"}])),
        f"{DS}.metricsSpec[0].type",
        "aggregator type",
    ),
    (
        "sum-without-fieldName",
        mutated((f"{DS}.metricsSpec", [{"type": "doubleMax", "name": "m"}])),
        f"{DS}.metricsSpec[0].fieldName",
        "input column",
    ),
    (
        "metric-shadows-dimension",
        mutated((f"{DS}.metricsSpec", [{"type": "count", "name": "country"}])),
        f"{DS}.metricsSpec[0].name",
        "unique column names",
    ),
    (
        "bad-segmentGranularity",
        mutated((f"{GS}.segmentGranularity", "HOURLY")),
        f"{GS}.segmentGranularity",
        "FIFTEEN_MINUTE",
    ),
    (
        "bad-queryGranularity",
        mutated((f"{GS}.queryGranularity", {"type": "period"})),
        f"{GS}.queryGranularity.period",
        "PT1H",
    ),
    ("bad-interval", mutated((f"{GS}.intervals", ["2026-07-16"])), f"{GS}.intervals[0]", "<start>/<end>"),
    (
        "reversed-interval",
        mutated((f"{GS}.intervals", ["2026-07-17/2026-07-16"])),
        f"{GS}.intervals[0]",
        "<start>/<end>",
    ),
    ("intervals-not-list", mutated((f"{GS}.intervals", "2026-07-16/P1D")), f"{GS}.intervals", "["),
    ("ioConfig-type-mismatch", mutated((f"{IO}.type", "index")), f"{IO}.type", "'index_parallel'"),
    ("missing-inputSource", mutated((f"{IO}.inputSource", DELETE)), f"{IO}.inputSource", "JSON object"),
    ("inputSource-without-type", mutated((f"{IO}.inputSource", {"uris": []})), f"{IO}.inputSource.type", "s3"),
    ("missing-inputFormat", mutated((f"{IO}.inputFormat", DELETE)), f"{IO}.inputFormat", "JSON object"),
    ("inputFormat-without-type", mutated((f"{IO}.inputFormat", {})), f"{IO}.inputFormat.type", "json, csv"),
    # Jackson reads "false" as false but refuses "1"/"yes" for a boolean ("only true or false recognized")
    ("string-boolean", mutated((f"{IO}.appendToExisting", "yes")), f"{IO}.appendToExisting", "true or false"),
    (
        "append-and-drop",
        mutated(
            (f"{IO}.appendToExisting", True),
            (f"{TC}.forceGuaranteedRollup", False),
            (f"{TC}.partitionsSpec", {"type": "dynamic"}),
        ),
        f"{IO}.dropExisting",
        "appendToExisting: false",
    ),
    (
        "drop-without-intervals",
        mutated((f"{GS}.intervals", []), (f"{TC}.forceGuaranteedRollup", False), (f"{TC}.partitionsSpec", DELETE)),
        f"{GS}.intervals",
        "intervals to replace",
    ),
    ("tuning-type-mismatch", mutated((f"{TC}.type", "index")), f"{TC}.type", "'index_parallel'"),
    ("rollup-with-dynamic", mutated((f"{TC}.partitionsSpec", {"type": "dynamic"})), f"{PS}.type", "hashed"),
    (
        "rollup-with-append",
        mutated((f"{IO}.appendToExisting", True), (f"{IO}.dropExisting", False)),
        f"{IO}.appendToExisting",
        "false",
    ),
    ("range-without-rollup", mutated((f"{TC}.forceGuaranteedRollup", False)), f"{PS}.type", "dynamic"),
    (
        "range-without-dimensions",
        mutated((f"{PS}.partitionDimensions", [])),
        f"{PS}.partitionDimensions",
        '["country"]',
    ),
    (
        "range-target-and-max",
        mutated((f"{PS}.maxRowsPerSegment", 100)),
        f"{PS}.targetRowsPerSegment",
        "targetRowsPerSegment",
    ),
    (
        "single-dim-without-dimension",
        mutated((f"{TC}.partitionsSpec", {"type": "single_dim", "targetRowsPerSegment": 10})),
        f"{PS}.partitionDimension",
        "dimension name",
    ),
    (
        "hashed-numShards-and-target",
        mutated((f"{TC}.partitionsSpec", {"type": "hashed", "numShards": 4, "targetRowsPerSegment": 10})),
        f"{PS}.numShards",
        "either numShards",
    ),
    ("unknown-partitions-type", mutated((f"{PS}.type", "ranged")), f"{PS}.type", "single_dim"),
    ("zero-subtasks", mutated((f"{TC}.maxNumConcurrentSubTasks", 0)), f"{TC}.maxNumConcurrentSubTasks", ">= 1"),
    # a JSON float is truncated (ACCEPT_FLOAT_AS_INT) but a string must parse as an integer
    ("decimal-text-subtasks", mutated((f"{TC}.maxNumConcurrentSubTasks", "2.5")), f"{TC}.maxNumConcurrentSubTasks",
     ">= 1"),
    ("both-subtask-keys", mutated((f"{TC}.maxNumSubTasks", 2)), f"{TC}.maxNumSubTasks", "maxNumConcurrentSubTasks"),
    ("id-with-slash", mutated(("id", "a/b")), "id", "at most 200"),
    ("id-too-long", mutated(("id", "x" * 201)), "id", "at most 200"),
    ("id-with-newline", mutated(("id", "a\nb")), "id", "plain spaces"),
    ("id-control-char", mutated(("id", "a\x01b")), "id", "[A-Za-z0-9._:-]"),
]


def test_enough_malformed_cases() -> None:
    assert len(MALFORMED) >= 25
    assert len({case[0] for case in MALFORMED}) == len(MALFORMED)


@pytest.mark.parametrize(
    ("spec", "path", "valid"), [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_malformed_spec_names_path_and_valid(spec: Any, path: str, valid: str) -> None:
    with pytest.raises(SpecValidationError) as info:
        validate_spec(spec)
    matching = [p for p in info.value.problems if p.path == path]
    assert matching, f"no problem at {path}: {info.value}"
    problem = matching[0]
    assert problem.valid and valid in problem.valid, str(problem)
    assert f"{path}: " in str(info.value)
    assert "valid: " in str(problem)


def test_guide_spec_passes_and_is_not_mutated() -> None:
    before = copy.deepcopy(GUIDE_SPEC)
    validate_spec(GUIDE_SPEC)
    assert find_problems(GUIDE_SPEC) == []
    assert before == GUIDE_SPEC


def test_streaming_key_is_only_a_warning() -> None:
    warnings = find_warnings(GUIDE_SPEC)
    assert [w.path for w in warnings] == ["spec.tuningConfig.intermediatePersistPeriod"]
    assert "streaming" in warnings[0].message


def test_deprecated_key_with_the_same_behaviour_is_accepted_quietly() -> None:
    # issue 18: Druid reads maxNumSubTasks as maxNumConcurrentSubTasks; a warning there was noise
    spec = mutated((f"{TC}.maxNumConcurrentSubTasks", DELETE), (f"{TC}.maxNumSubTasks", 2))
    assert find_problems(spec) == []
    assert not any(w.path == f"{TC}.maxNumSubTasks" for w in find_warnings(spec))


def test_several_problems_all_reported() -> None:
    spec = mutated(
        ("id", ".bad"),
        (f"{DS}.dataSource", "x/y"),
        (f"{GS}.segmentGranularity", "fortnight"),
        (f"{IO}.appendToExisting", True),
        (f"{IO}.dropExisitng", True),
        (f"{TC}.maxNumConcurrentSubTasks", -1),
    )
    paths = {p.path for p in find_problems(spec)}
    assert {
        "id",
        f"{DS}.dataSource",
        f"{GS}.segmentGranularity",
        f"{IO}.dropExisitng",
        f"{IO}.appendToExisting",
        f"{TC}.maxNumConcurrentSubTasks",
    } <= paths
    with pytest.raises(SpecValidationError) as info:
        validate_spec(spec)
    assert f"({len(info.value.problems)} problem(s))" in str(info.value)


@pytest.mark.parametrize(
    ("changes", "path", "suggestion"),
    [
        (((f"{IO}.dropExisting", DELETE), (f"{IO}.dropExisitng", True)), f"{IO}.dropExisitng", "dropExisting"),
        (((f"{GS}.segmentGranularty", "DAY"),), f"{GS}.segmentGranularty", "segmentGranularity"),
        (((f"{PS}.partitionDimension", "country"),), f"{PS}.partitionDimension", "partitionDimensions"),
        (((f"{TC}.forceGuarenteedRollup", True),), f"{TC}.forceGuarenteedRollup", "forceGuaranteedRollup"),
        (((f"{DS}.timestampSpec.colunm", "ts"),), f"{DS}.timestampSpec.colunm", "column"),
        (
            ((f"{DS}.dimensionsSpec.dimensionExclusion", []),),
            f"{DS}.dimensionsSpec.dimensionExclusion",
            "dimensionExclusions",
        ),
        ((("contxt", {}),), "contxt", "context"),
        ((("spec.tuningconfig", {}),), "spec.tuningconfig", "tuningConfig"),
    ],
)
def test_misspelled_keys_get_suggestions(changes: tuple[tuple[str, Any], ...], path: str, suggestion: str) -> None:
    problems = [p for p in find_problems(mutated(*changes)) if p.path == path]
    assert len(problems) == 1
    assert f"unknown key; did you mean {suggestion!r}?" in str(problems[0])


def test_far_off_unknown_key_has_no_suggestion() -> None:
    problems = [p for p in find_problems(mutated((f"{IO}.zzzz", 1))) if p.path == f"{IO}.zzzz"]
    assert problems and "did you mean" not in problems[0].message
    assert "inputSource" in str(problems[0].valid)


def test_druid_input_source_needs_no_input_format() -> None:
    spec = mutated(
        (f"{IO}.inputSource", {"type": "druid", "dataSource": "events_web", "interval": "2026-07-16/P1D"}),
        (f"{IO}.inputFormat", DELETE),
    )
    assert find_problems(spec) == []


def test_index_task_type_is_supported() -> None:
    spec = mutated(
        ("type", "index"), (f"{IO}.type", "index"), (f"{TC}.type", "index"), (f"{TC}.maxNumConcurrentSubTasks", DELETE)
    )
    assert find_problems(spec) == []


@pytest.mark.parametrize(
    "granularity",
    [
        "hour",
        "FIFTEEN_MINUTE",
        "all",
        {"type": "period", "period": "PT2H"},
        {"type": "duration", "duration": 3600000},
        {"type": "none"},
    ],
)
def test_valid_granularities(granularity: Any) -> None:
    # segmentGranularity ALL keeps the range-partitioning coarseness check out of this test
    assert find_problems(mutated((f"{GS}.queryGranularity", granularity), (f"{GS}.segmentGranularity", "ALL"))) == []


# ---- ISO-8601 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("2026-07-16T00:00:00Z/2026-07-17T00:00:00Z", 24),
        ("2026-07-16T00:00:00.000Z/2026-07-16T06:00:00.000Z", 6),
        ("2026-07-16/2026-07-17", 24),
        ("2026-07-16T00/2026-07-16T12", 12),
        ("2026-07-16/P1D", 24),
        ("2026-07-16T00:00:00Z/PT90M", 1.5),
        ("P1W/2026-07-17", 24 * 7),
        ("2026-02-01/P1M", 24 * 28),
        ("2024-01-01/P1Y", 24 * 366),
        ("2026-07-16T00:00:00+02:00/2026-07-16T00:00:00Z", 2),
        ("2026-07-16T00:00:00.5Z/PT1.5S", 1.5 / 3600),
    ],
)
def test_interval_parses(text: str, hours: float) -> None:
    start, end = parse_interval(text)
    assert (end - start).total_seconds() == pytest.approx(hours * 3600)
    assert start.tzinfo is not None


@pytest.mark.parametrize(
    "text",
    [
        "2026-07-16",
        "2026-07-17/2026-07-16",
        "2026-07-16/2026-07-16",
        "P1D/P2D",
        "2026-13-01/2027-01-01",
        "2026-07-16/P",
        "2026-07-16/PT",
        "2026-07-16/P1H",
        "a/b",
        "2026-07-16/2026-07-17/2026-07-18",
        42,
    ],
)
def test_interval_rejected(text: Any) -> None:
    with pytest.raises(ValueError):
        parse_interval(text)


def test_duration_parts() -> None:
    period = parse_duration("P1Y2M3W4DT5H6M7.5S")
    assert (period.years, period.months, period.weeks, period.days) == (1, 2, 3, 4)
    assert (period.hours, period.minutes, period.seconds) == (5, 6, 7.5)


# ---- facts and slots ----------------------------------------------------------------------------------


def test_task_slots_sequential_by_default() -> None:
    spec = mutated(
        (f"{TC}.maxNumConcurrentSubTasks", DELETE),
        (f"{TC}.forceGuaranteedRollup", False),
        (f"{TC}.partitionsSpec", {"type": "dynamic"}),
    )
    assert task_slots(spec) == 1
    assert spec_facts(spec).parallel is False


def test_task_slots_parallel_k4() -> None:
    assert task_slots(GUIDE_SPEC) == 5
    facts = spec_facts(GUIDE_SPEC)
    assert facts.parallel and facts.max_subtasks == 4
    assert facts.ingestion_mode == "REPLACE" and facts.forces_rollup
    assert facts.datasource == "events_web" and facts.input_source_type == "s3"


def test_task_slots_k1_dynamic_is_sequential() -> None:
    spec = mutated(
        (f"{TC}.maxNumConcurrentSubTasks", 1), (f"{TC}.forceGuaranteedRollup", False), (f"{TC}.partitionsSpec", DELETE)
    )
    assert task_slots(spec) == 1


def test_range_k1_is_parallel_with_one_subtask() -> None:
    # Druid runs range partitioning in parallel mode even at k=1: supervisor + 1 subtask.
    facts = spec_facts(mutated((f"{TC}.maxNumConcurrentSubTasks", 1)))
    assert facts.parallel is True and facts.task_slots == 2


def test_inline_input_is_never_parallel() -> None:
    spec = mutated((f"{IO}.inputSource", {"type": "inline", "data": "{}"}))
    assert spec_facts(spec).parallel is False and task_slots(spec) == 1


def test_index_task_uses_one_slot() -> None:
    assert task_slots(mutated(("type", "index"))) == 1


@pytest.mark.parametrize(
    ("append", "drop", "mode"),
    [(False, True, "REPLACE"), (True, False, "APPEND"), (False, False, "REPLACE_LEGACY")],
)
def test_ingestion_mode(append: bool, drop: bool, mode: str) -> None:
    spec = mutated((f"{IO}.appendToExisting", append), (f"{IO}.dropExisting", drop))
    assert spec_facts(spec).ingestion_mode == mode


def test_facts_accept_bare_spec_and_garbage() -> None:
    assert spec_facts(GUIDE_SPEC["spec"]).task_slots == 5
    assert spec_facts({}).task_slots == 1


def test_bare_spec_reported_once_then_checked_inside() -> None:
    bare = copy.deepcopy(GUIDE_SPEC["spec"])
    bare["ioConfig"]["dropExisitng"] = True
    problems = find_problems(bare)
    assert [p.path for p in problems] == ["$", "spec.ioConfig.dropExisitng"]
    assert '"type": "index_parallel"' in str(problems[0].valid)


def test_query_granularity_coarser_than_segments_with_range_is_rejected() -> None:
    """Found on real Druid 33: accepted at submit, then every partial_dimension_distribution subtask fails."""
    from druid_ingest.planning.spec import find_problems

    from tests.druid_ingest.sample_specs import day_spec

    spec = day_spec()
    spec["spec"]["dataSchema"]["granularitySpec"].update(segmentGranularity="HOUR", queryGranularity="DAY")
    problems = find_problems(spec)
    assert [p.path for p in problems] == ["spec.dataSchema.granularitySpec.queryGranularity"]
    assert "coarser than segmentGranularity" in str(problems[0])
    spec["spec"]["dataSchema"]["granularitySpec"]["queryGranularity"] = "HOUR"
    assert find_problems(spec) == []
    dynamic = day_spec(dynamic=True)
    dynamic["spec"]["dataSchema"]["granularitySpec"].update(segmentGranularity="HOUR", queryGranularity="DAY")
    assert find_problems(dynamic) == []
