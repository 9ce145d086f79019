"""Pre-flight reads scalars as Druid's Jackson does and applies Druid's defaults before cross-field rules (issue 18).

Each case is a spec Druid accepts (or reads in a way our old reading did not): it must not be refused, and the
facts (mode, slots) must follow Druid's reading.
"""

from __future__ import annotations

from typing import Any

import pytest
from druid_ingest.planning.spec import find_problems, spec_facts
from druid_ingest.planning.spec.alignment import alignment_findings
from druid_ingest.planning.spec.jackson import INVALID, read_bool, read_int

from tests.druid_ingest.planning.spec.test_validate import DELETE, mutated

TC = "spec.tuningConfig"
IO = "spec.ioConfig"
GS = "spec.dataSchema.granularitySpec"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), ("true", True), ("false", False), ("TRUE", True), ("False", False),
     (1, True), (2, True), (-1, True), (0, False), (None, None), (" true ", True), ("", None), ("null", None),
     ("1", INVALID), ("0", INVALID), ("yes", INVALID), ({}, INVALID), (1.0, INVALID),
     ("\x01 true\t\n", True), (" true!", INVALID), ("!true", INVALID), ("Xtrue", INVALID)],
)
def test_read_bool_follows_jackson(value: Any, expected: Any) -> None:
    assert read_bool(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(4, 4), ("4", 4), ("-3", -3), (" 4 ", 4), (4.0, 4), (2.9, 2), (None, None), ("", None), ("null", None),
     ("4.0", INVALID), ("four", INVALID), (True, INVALID), ([4], INVALID), (float("nan"), INVALID)],
)
def test_read_int_follows_jackson(value: Any, expected: Any) -> None:
    assert read_int(value) == expected if expected is not INVALID else read_int(value) is INVALID


ACCEPTED = [
    # Druid's own parallel-index tests submit string booleans
    ("string-forceGuaranteedRollup", mutated((f"{TC}.forceGuaranteedRollup", "true"))),
    ("string-rollup", mutated((f"{GS}.rollup", "false"))),
    ("string-dropExisting", mutated((f"{IO}.dropExisting", "true"))),
    ("string-subtasks", mutated((f"{TC}.maxNumConcurrentSubTasks", "4"))),
    ("string-targetRows", mutated((f"{TC}.partitionsSpec.targetRowsPerSegment", "5000000"))),
    ("null-tuning-key", mutated((f"{TC}.maxNumConcurrentSubTasks", None))),
    # tuningConfig is optional: Druid uses the defaults (best-effort rollup, dynamic partitionsSpec)
    ("no-tuningConfig", mutated((TC, DELETE))),
    ("null-tuningConfig", mutated((TC, None))),
    # forceGuaranteedRollup without a partitionsSpec: Druid defaults to hashed
    ("rollup-without-partitionsSpec", mutated((f"{TC}.partitionsSpec", DELETE))),
    ("rollup-null-partitionsSpec", mutated((f"{TC}.partitionsSpec", None))),
    ("float-subtasks-truncated", mutated((f"{TC}.maxNumConcurrentSubTasks", 2.5))),
]


@pytest.mark.parametrize("spec", [case[1] for case in ACCEPTED], ids=[case[0] for case in ACCEPTED])
def test_specs_druid_accepts_are_not_refused(spec: dict[str, Any]) -> None:
    assert find_problems(spec) == []


def test_string_false_rollup_still_knocks_on_with_a_range_partitionsSpec() -> None:
    # "false" IS false: a range partitionsSpec then needs forceGuaranteedRollup, as Druid says
    problems = find_problems(mutated((f"{TC}.forceGuaranteedRollup", "false")))
    assert [p.path for p in problems] == [f"{TC}.partitionsSpec.type"]


def test_no_tuningConfig_with_a_hashed_default_is_not_needed_but_append_rules_still_run() -> None:
    # without tuningConfig there is no perfect rollup, so appending is fine
    spec = mutated((TC, DELETE), (f"{IO}.appendToExisting", "true"), (f"{IO}.dropExisting", False))
    assert find_problems(spec) == []


def test_string_true_append_and_drop_is_refused_as_druid_does() -> None:
    spec = mutated((f"{IO}.appendToExisting", "true"), (f"{TC}.forceGuaranteedRollup", False),
                   (f"{TC}.partitionsSpec", {"type": "dynamic"}))
    assert [p.message for p in find_problems(spec)] == [
        "Cannot simultaneously replace and append to existing segments"
    ]


def test_facts_read_string_booleans_and_numbers_as_druid_does() -> None:
    append = spec_facts(mutated((f"{IO}.appendToExisting", "true"), (f"{IO}.dropExisting", "false")))
    assert (append.append, append.drop_existing, append.ingestion_mode) == (True, False, "APPEND")
    replace = spec_facts(mutated((f"{IO}.dropExisting", "true")))
    assert (replace.drop_existing, replace.ingestion_mode) == (True, "REPLACE")
    slots = spec_facts(mutated((f"{TC}.maxNumConcurrentSubTasks", "3"), (f"{TC}.forceGuaranteedRollup", "true")))
    assert (slots.max_subtasks, slots.task_slots, slots.forces_rollup) == (3, 4, True)


def test_string_true_append_is_never_refused_as_an_unaligned_replace() -> None:
    spec = mutated((f"{IO}.appendToExisting", "true"), (f"{IO}.dropExisting", False),
                   (f"{GS}.intervals", ["2026-07-16T00:30:00Z/2026-07-16T05:00:00Z"]))
    assert alignment_findings(spec) == ([], [])

