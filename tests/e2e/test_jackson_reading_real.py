"""Pre-flight reads scalar values as real Druid does (issue 18): for each spelling, Druid's verdict at submit
(accepted: a task id; refused: 400) equals pre-flight's. Accepted tasks are shut down at once (own datasource)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import requests

from airflow_provider_druid_ingest.core.spec import find_problems

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


def _druid_accepts(druid_url: str, spec: dict[str, Any]) -> bool:
    answer = requests.post(f"{druid_url}/druid/indexer/v1/task", json=spec, timeout=60)
    if answer.status_code == 400:
        return False
    answer.raise_for_status()
    task_id = answer.json()["task"]
    requests.post(f"{druid_url}/druid/indexer/v1/task/{task_id}/shutdown", timeout=60).raise_for_status()
    return True


@pytest.mark.parametrize(("tuning", "io", "recorded"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_preflight_agrees_with_druid_on_each_spelling(
    druid_url: str, tuning: dict[str, Any], io: dict[str, Any], recorded: bool
) -> None:
    spec = _spec(tuning, io)
    druid = _druid_accepts(druid_url, spec)
    assert druid is recorded, "Druid's reading changed since it was recorded"
    assert (find_problems(spec) == []) is druid, find_problems(spec)
