"""Validator edges a mutation run found untested: exact problem paths, and each message naming what is valid."""

from __future__ import annotations

from druid_ingest.planning.spec import find_problems
from druid_ingest.planning.spec import known_keys as kk

from tests.druid_ingest.sample_specs import day_spec

GS = "spec.dataSchema.granularitySpec"


def _problems(spec: dict) -> dict[str, list]:
    found: dict[str, list] = {}
    for problem in find_problems(spec):
        found.setdefault(problem.path, []).append(problem)
    return found


def test_intervals_that_are_not_an_array() -> None:
    spec = day_spec(dynamic=True)
    spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = "2026-11-01/2026-11-02"
    problems = _problems(spec)
    assert list(problems) == [f"{GS}.intervals"]  # and no "must be non-empty for dropExisting" on top of it
    [problem] = problems[f"{GS}.intervals"]
    assert "must be an array" in problem.message and "string" in problem.message
    assert problem.value == "2026-11-01/2026-11-02"
    assert problem.valid and "[" in problem.valid and "/" in problem.valid  # an example array of intervals
    assert "2026-11-01/2026-11-02" in str(problem)


def test_a_missing_granularity_spec_with_drop_existing() -> None:
    spec = day_spec(dynamic=True)
    assert spec["spec"]["ioConfig"]["dropExisting"] is True
    del spec["spec"]["dataSchema"]["granularitySpec"]
    problems = _problems(spec)
    assert list(problems) == [f"{GS}.intervals"]
    [problem] = problems[f"{GS}.intervals"]
    assert "non-empty" in problem.message and "dropExisting" in problem.message
    assert problem.valid and "intervals to replace" in problem.valid


def test_without_drop_existing_a_missing_granularity_spec_is_fine() -> None:
    spec = day_spec(dynamic=True)
    spec["spec"]["ioConfig"]["dropExisting"] = False
    del spec["spec"]["dataSchema"]["granularitySpec"]
    assert _problems(spec) == {}


def test_unknown_keys_directly_under_data_schema() -> None:
    spec = day_spec(dynamic=True)
    spec["spec"]["dataSchema"].update(granularitySpecs={}, zzzzzz=1)
    problems = _problems(spec)
    assert sorted(problems) == ["spec.dataSchema.granularitySpecs", "spec.dataSchema.zzzzzz"]
    [close] = problems["spec.dataSchema.granularitySpecs"]
    [far] = problems["spec.dataSchema.zzzzzz"]
    assert "did you mean 'granularitySpec'?" in close.message
    assert "silently ignores" in far.message
    for problem in (close, far):
        assert problem.valid == "known keys here: " + ", ".join(sorted(kk.DATA_SCHEMA_KEYS))
