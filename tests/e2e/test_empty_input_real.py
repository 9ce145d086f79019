"""An empty input never erases an interval silently, proven on the real Druid (dev/druid, Druid 33).

A ``dropExisting`` replace with dynamic partitioning over an empty or missing folder: Druid publishes tombstones
over the interval and the task is SUCCESS (the last test shows it, with ``allow_empty=True``). The client's input
probe (``operations.probe_input``) asks the sampler first and fails before any submit.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidEmptyInputError

from .test_real_druid import POLL, build, day_counts, day_interval, ingest, wait_sql

pytestmark = pytest.mark.timeout(600)
DS = "e2e_empty_probe"


def dynamic(spec: dict[str, Any]) -> dict[str, Any]:
    """The defect's shape: dynamic partitioning (range writes no tombstones, RECORDED.md §2)."""
    out = copy.deepcopy(spec)
    out["spec"]["tuningConfig"].update(forceGuaranteedRollup=False, partitionsSpec={"type": "dynamic"})
    return out


def hours(client: DruidClient, day: str) -> int:
    rows = client.sql(
        f"SELECT COUNT(DISTINCT TIME_FLOOR(__time, 'PT1H')) AS h FROM \"{DS}\" "
        f"WHERE __time >= TIMESTAMP '{day} 00:00:00' AND __time < TIMESTAMP '{day} 00:00:00' + INTERVAL '1' DAY"
    )
    return int(rows[0]["h"]) if rows else 0


def task_ids(client: DruidClient) -> set[str]:
    rows = client.sql("SELECT task_id FROM sys.tasks WHERE datasource = ?", [{"type": "VARCHAR", "value": DS}])
    return {r["task_id"] for r in rows}


def loaded_day(real: DruidClient, spec_template: dict, events_dir: Path, expected: dict, day: str) -> dict:
    spec = dynamic(build(spec_template, events_dir, day, DS))
    _outcome, _status, _first, result = ingest(real, spec, idempotency_key=f"load-{time.time_ns()}")  # rerunnable
    assert result.state == "loaded", result
    want = expected[day]
    assert wait_sql(real, DS, day, lambda got: got["rows"] == want["rows"])["rows"] == want["rows"]
    assert hours(real, day) == 24
    return day_counts(real, DS, day)


def replace_from(spec_template: dict, folder: Path, day: str) -> dict[str, Any]:
    spec = dynamic(build(spec_template, folder.parent, day, DS))
    spec["spec"]["ioConfig"]["inputSource"]["baseDir"] = str(folder)
    assert spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [day_interval(day)]
    return spec


def test_replace_over_an_empty_or_missing_folder_fails_before_submit_and_keeps_24_hours(
    real, spec_template, events_dir, expected, tmp_path
):
    day = "2026-11-01"
    before = loaded_day(real, spec_template, events_dir, expected, day)
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder in (empty, tmp_path / "missing"):
        spec = replace_from(spec_template, folder, day)
        submitted_before = task_ids(real)
        with pytest.raises(DruidEmptyInputError) as info:
            real.ensure_submitted(spec, idempotency_key=f"empty-{folder.name}")
        text = str(info.value)
        assert str(folder) in text and "nothing was submitted" in text and "allow_empty=True" in text, text
        assert task_ids(real) == submitted_before  # no task reached the Overlord
        assert day_counts(real, DS, day) == before and hours(real, day) == 24


def test_a_probe_that_finds_rows_submits_and_says_so(real, spec_template, events_dir):
    day = "2026-11-03"
    spec = dynamic(build(spec_template, events_dir, day, DS))
    outcome = real.ensure_submitted(spec, idempotency_key=f"probe-{time.time_ns()}")
    assert outcome.action == "submitted", outcome
    assert outcome.input_probe is not None and outcome.input_probe.startswith("input probe: the sampler read 1 row(s)")
    assert real.wait_for_task(outcome.task_id, timeout=300, schedule=POLL).state == "SUCCESS"


def test_without_the_probe_druid_erases_the_day_and_succeeds(real, spec_template, events_dir, expected, tmp_path):
    """The defect itself (what ``allow_empty=True`` asks for): tombstones over the day, SUCCESS, 0 hours left."""
    day = "2026-11-02"
    loaded_day(real, spec_template, events_dir, expected, day)
    empty = tmp_path / "empty"
    empty.mkdir()
    spec = replace_from(spec_template, empty, day)
    outcome = real.ensure_submitted(spec, idempotency_key=f"allowed-empty-{time.time_ns()}", allow_empty=True)
    assert outcome.action == "submitted" and outcome.input_probe is None
    assert real.wait_for_task(outcome.task_id, timeout=300, schedule=POLL).state == "SUCCESS"
    got = wait_sql(real, DS, day, lambda g: not g["rows"], timeout=120)
    assert not got["rows"] and hours(real, day) == 0


def _sampler_body(spec_template: dict, base_dir: str, **change: Any) -> dict[str, Any]:
    schema = copy.deepcopy(spec_template["spec"]["dataSchema"])
    schema["granularitySpec"]["intervals"] = [day_interval("2026-11-01")]
    source = change.pop("source", {"type": "local", "baseDir": base_dir, "filter": "*.json"})
    kind = change.pop("kind", "index")
    return {"type": kind, "spec": {"dataSchema": schema, "ioConfig": {"type": kind, "inputSource": source,
                                                                       "inputFormat": {"type": "json"}},
                                   "tuningConfig": {"type": kind}},
            "samplerConfig": {"numRows": change.pop("num_rows", 5), "timeoutMs": 10000}}


def test_the_fake_sampler_answers_as_druid_33_does(druid_url, spec_template, events_dir, tmp_path):
    """The same sampler bodies to the fake and to the real Druid: the same status, counts' emptiness, errors."""
    import requests
    from druid_ingest.testing import FakeDruid, TaskPlan

    empty = tmp_path / "empty"
    empty.mkdir()
    cases = {
        "rows": (str(events_dir / "2026-11-01"), {}, None),
        "empty": (str(empty), {}, TaskPlan(rows_per_bucket=0)),
        "missing": (str(tmp_path / "missing"), {}, TaskPlan(rows_per_bucket=0)),
        "index_parallel": (str(empty), {"kind": "index_parallel"}, None),
        "too_many_rows": (str(empty), {"num_rows": 5001}, None),
        "s3": (str(empty), {"source": {"type": "s3", "prefixes": ["s3://b/p/"]}}, None),
    }
    with FakeDruid() as fake:
        for name, (base, change, plan) in cases.items():
            body = _sampler_body(spec_template, base, **copy.deepcopy(change))
            fake.state.plans.clear()
            if plan is not None:
                fake.plan_next_task(plan)
            got = [requests.post(f"{url}/druid/indexer/v1/sampler", json=body, timeout=60)
                   for url in (druid_url, fake.url)]
            real_resp, fake_resp = got
            assert real_resp.status_code == fake_resp.status_code, (name, real_resp.text[:300], fake_resp.text[:300])
            real_json, fake_json = real_resp.json(), fake_resp.json()
            if real_resp.status_code == 200:
                assert (real_json["numRowsRead"] > 0) == (fake_json["numRowsRead"] > 0), name
                assert {"numRowsRead", "numRowsIndexed", "data"} <= set(real_json) & set(fake_json)
            else:
                assert real_json == fake_json, name


def test_an_input_holding_another_days_rows_is_refused_and_the_day_keeps_its_rows(
    real, spec_template, events_dir, expected
):
    """Issue 27 item 2, on Druid 33: a hashed dropExisting replace of a day whose folder holds only another day's
    file. Druid would drop those rows (outside the interval) and tombstone the day (2000 -> 0 rows, seen); the
    probe reads their ``__time`` and refuses before any submit."""
    day, other = "2026-11-04", "2026-11-05"
    before = loaded_day(real, spec_template, events_dir, expected, day)
    spec = replace_from(spec_template, events_dir / other, day)
    spec["spec"]["tuningConfig"].update(forceGuaranteedRollup=True,
                                        partitionsSpec={"type": "hashed", "numShards": 2})
    submitted_before = task_ids(real)
    with pytest.raises(DruidEmptyInputError) as info:
        real.ensure_submitted(spec, idempotency_key=f"wrong-day-{time.time_ns()}")
    text = str(info.value)
    print(f"\n[e2e] wrong-day input refused: {text}")
    assert f"all with __time {other}" in text and f"outside {day_interval(day)}" in text, text
    assert "nothing was submitted" in text and "allow_empty=True" in text
    assert task_ids(real) == submitted_before  # no task reached the Overlord
    assert day_counts(real, DS, day) == before and hours(real, day) == 24
