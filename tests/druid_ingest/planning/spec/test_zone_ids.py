"""A ``timeZone`` that matches a real zone only case-insensitively is a pre-flight problem (issue 27 item 7b).

Druid 33 accepted ``{"type": "period", "period": "P1D", "timeZone": "europe/berlin"}`` and stored the task with
``segmentGranularity: "DAY"``: an unknown id is read as UTC (``DateTimes.inferTzFromString``), so the Berlin days
the spec asks for become UTC days, the loss the alignment check exists to prevent.
"""

from __future__ import annotations

from typing import Any

import pytest
from druid_ingest.planning.spec import find_problems

from tests.druid_ingest.sample_specs import guide_spec

GS = "spec.dataSchema.granularitySpec"


def with_zone(key: str, zone: str) -> dict[str, Any]:
    spec = guide_spec()
    spec["spec"]["dataSchema"]["granularitySpec"].update(
        segmentGranularity="ALL", queryGranularity="NONE")  # ALL: no range-partitioning coarseness problem
    spec["spec"]["dataSchema"]["granularitySpec"][key] = {"type": "period", "period": "P1D", "timeZone": zone}
    return spec


@pytest.mark.parametrize("key", ["segmentGranularity", "queryGranularity"])
def test_a_lower_case_zone_is_refused_naming_path_value_and_spelling(key: str) -> None:
    problems = [p for p in find_problems(with_zone(key, "europe/berlin")) if p.path.endswith("timeZone")]
    assert [str(p) for p in problems] == [str(problems[0])] and problems[0].path == f"{GS}.{key}.timeZone"
    text = str(problems[0])
    assert "'europe/berlin'" in text and "'Europe/Berlin'" in text and "case-sensitive" in text


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "utc", "UTC", "+02:00", "Mars/Olympus"])
def test_real_spellings_utc_variants_and_unknown_zones_are_not_this_problem(zone: str) -> None:
    assert not [p for p in find_problems(with_zone("segmentGranularity", zone)) if p.path.endswith("timeZone")]
