"""Pre-flight reads scalar values as Druid 33 does: for each spelling, the verdict Druid gave at submit (recorded
2026-12-02 on dev/druid: accepted = a task id, refused = 400; docs/druid-contract.md §jackson-reading) equals
pre-flight's.

Recorded, not re-submitted in CI: the accepted specs were index_parallel supervisors shut down at once, and on Druid 33
two of them stayed "shutting down" for over 15 minutes (their subtasks' POST /druid/indexer/v1/action answered 500),
holding the Indexer's parallel-task slots so every later ingestion of the real-Druid suite queued behind them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from druid_ingest.planning.spec import find_problems

DATASOURCE = "pf_jackson_probe"
BASE: dict[str, Any] = {
    "type": "index_parallel",
    "spec": {
        "dataSchema": {
            "dataSource": DATASOURCE,
            "timestampSpec": {"column": "ts"},
            "dimensionsSpec": {"dimensions": ["a"]},
            "granularitySpec": {"segmentGranularity": "DAY", "intervals": ["2020-01-01/2020-01-02"]},
        },
        "ioConfig": {
            "type": "index_parallel",
            "inputSource": {"type": "inline", "data": '{"ts": "2020-01-01T01:00:00Z", "a": "x"}'},
            "inputFormat": {"type": "json"},
        },
        "tuningConfig": {"type": "index_parallel"},
    },
}
HASHED = {"type": "hashed", "numShards": 1}

# (name, tuningConfig changes, ioConfig changes, Druid 33's verdict as recorded 2026-12-02)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], bool]] = [
    ("rollup-string-true", {"forceGuaranteedRollup": "true", "partitionsSpec": HASHED}, {}, True),
    ("rollup-true-no-partitionsSpec", {"forceGuaranteedRollup": "true"}, {}, True),
    ("rollup-int-1", {"forceGuaranteedRollup": 1, "partitionsSpec": HASHED}, {}, True),
    ("rollup-empty-string", {"forceGuaranteedRollup": ""}, {}, True),
    ("rollup-string-1", {"forceGuaranteedRollup": "1"}, {}, False),
    ("rollup-string-yes", {"forceGuaranteedRollup": "yes"}, {}, False),
    ("subtasks-string-2", {"maxNumConcurrentSubTasks": "2"}, {}, True),
    ("subtasks-float-2.5", {"maxNumConcurrentSubTasks": 2.5}, {}, True),
    ("subtasks-string-2.5", {"maxNumConcurrentSubTasks": "2.5"}, {}, False),
    ("subtasks-boolean", {"maxNumConcurrentSubTasks": True}, {}, False),
    ("no-tuningConfig", {"__delete__": True}, {}, True),
    ("drop-string-true", {}, {"dropExisting": "true"}, True),
    ("append-and-drop-strings", {}, {"appendToExisting": "true", "dropExisting": "true"}, False),
]


def _spec(tuning: dict[str, Any], io: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(BASE)
    if tuning.get("__delete__"):
        del spec["spec"]["tuningConfig"]
    else:
        spec["spec"]["tuningConfig"].update(tuning)
    spec["spec"]["ioConfig"].update(io)
    return spec


@pytest.mark.parametrize(("tuning", "io", "druid_accepts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_preflight_agrees_with_druids_recorded_verdict(tuning: dict[str, Any], io: dict[str, Any],
                                                       druid_accepts: bool) -> None:
    spec = _spec(tuning, io)
    assert (find_problems(spec) == []) is druid_accepts, find_problems(spec)
