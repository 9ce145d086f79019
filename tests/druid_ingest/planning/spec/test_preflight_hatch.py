"""The pre-flight escape hatch (issue 18): preflight="warn" submits a refused spec as is, every problem a warning;
every refusal names the hatch; the few problems our own code cannot work around stay fatal."""

from __future__ import annotations

import json

import pytest
from druid_ingest.errors import SpecValidationError
from druid_ingest.planning._ids import canonical_json
from druid_ingest.planning._plan import build_plan

from tests.druid_ingest.planning.spec.test_validate import DELETE, mutated

HATCH = "If Druid accepts this spec and the check is wrong, pass preflight='warn'"
GS = "spec.dataSchema.granularitySpec"
REFUSED = mutated(("spec.ioConfig.dropExisitng", True), ("spec.tuningConfig.maxNumConcurrentSubTasks", 0))


def test_a_refusal_names_the_hatch_on_its_last_line() -> None:
    with pytest.raises(SpecValidationError) as info:
        build_plan(REFUSED)
    assert len(info.value.problems) == 2
    assert str(info.value).splitlines()[-1].startswith(HATCH)


def test_warn_submits_the_spec_as_is_with_every_problem_a_warning() -> None:
    plan = build_plan(REFUSED, preflight="warn")
    assert plan.spec_json == canonical_json(REFUSED)  # not repaired, not re-shaped
    overridden = [w for w in plan.warnings if w.startswith("pre-flight (preflight='warn'")]
    assert len(overridden) == 2
    assert any("spec.ioConfig.dropExisitng" in w for w in overridden)
    assert any("maxNumConcurrentSubTasks" in w for w in overridden)


def test_warn_on_a_valid_spec_changes_nothing() -> None:
    spec = mutated()
    assert build_plan(spec, preflight="warn") == build_plan(spec)


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        (mutated(("spec.dataSchema.dataSource", DELETE)), "spec.dataSchema.dataSource"),
        (mutated(("spec.dataSchema.dataSource", 7)), "spec.dataSchema.dataSource"),
        (mutated((f"{GS}.intervals", ["yesterday"])), f"{GS}.intervals[0]"),
        (mutated(("spec.tuningConfig.maxRowsInMemory", float("nan"))), "spec.tuningConfig.maxRowsInMemory"),
    ],
    ids=["no-datasource", "datasource-not-text", "unparseable-interval", "not-json"],
)
def test_warn_keeps_what_our_own_code_needs_fatal(spec: dict, path: str) -> None:
    with pytest.raises(SpecValidationError) as info:
        build_plan(spec, preflight="warn")
    assert [p.path for p in info.value.problems] == [path]
    assert "preflight='warn' does not lift these" in str(info.value).splitlines()[-1]


def test_warn_does_not_lift_an_unaligned_replace() -> None:
    spec = mutated((f"{GS}.segmentGranularity", "DAY"), (f"{GS}.intervals", ["2026-07-16T05:00:00Z/2026-07-17"]),
                   ("spec.ioConfig.dropExisitng", True))
    with pytest.raises(SpecValidationError) as info:
        build_plan(spec, preflight="warn")
    assert "allow_unaligned=True" in str(info.value) and "preflight='warn' does not lift this" in str(info.value)
    plan = build_plan(spec, preflight="warn", allow_unaligned=True)
    assert any("not aligned" in w for w in plan.warnings)


def test_a_render_error_says_the_hatch_does_not_apply() -> None:
    with pytest.raises(SpecValidationError) as info:
        build_plan(json.dumps(mutated()), input_locations=["ftp://nowhere/x"])
    assert "preflight='warn' does not apply" in str(info.value)


def test_an_unknown_preflight_value_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"preflight must be 'fail' .* or 'warn', not 'off'"):
        build_plan(mutated(), preflight="off")  # type: ignore[arg-type]
