"""A Europe/Berlin daily schedule against a real Druid: DAY segments are refused before any HTTP, HOUR segments
keep every hour of two consecutive runs (the second one the 25-hour DST day).

With DAY segments the same two runs on Druid 33 left 27 of 49 hours readable, both green: each replace overwrote
the whole UTC days it touched with its own rows only (docs/airflow.md "Non-UTC schedules").
"""

from __future__ import annotations

import copy
import json
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.errors import SpecValidationError
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning._plan import build_plan

pytestmark = pytest.mark.timeout(900)
POLL = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)
DATASOURCE = "e2e_align_hours"
RUNS = ("2026-10-23T22:00:00Z/2026-10-24T22:00:00Z", "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z")
WINDOW = ("2026-10-23 22:00:00", "2026-10-25 23:00:00")


def _hours(interval: str) -> list[datetime]:
    start, end = (datetime.fromisoformat(part.replace("Z", "+00:00")) for part in interval.split("/"))
    return [start + timedelta(hours=h) for h in range(int((end - start).total_seconds() // 3600))]


def write_run_input(root: Path, run: int, interval: str) -> dict[str, int]:
    """One JSON-lines file with 1..5 rows per hour of ``interval``; returns rows per hour (the expectation)."""
    folder = root / f"run{run}"
    folder.mkdir()
    rows: list[dict[str, Any]] = []
    per_hour: dict[str, int] = {}
    for hour in _hours(interval):
        n = 1 + (hour.day * 24 + hour.hour) % 5
        per_hour[hour.strftime("%Y-%m-%dT%H:00:00.000Z")] = n
        rows += [{"event_ts": (hour + timedelta(minutes=7 * i)).isoformat().replace("+00:00", "Z"),
                  "country": "DE", "device": "mobile", "page_id": i, "resp_bytes": 100} for i in range(n)]
    (folder / "events.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return per_hour


def hourly_spec(template: dict[str, Any], segment: str) -> dict[str, Any]:
    spec = copy.deepcopy(template)
    spec["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = segment
    spec["spec"]["tuningConfig"] = {"type": "index_parallel", "maxNumConcurrentSubTasks": 1,
                                    "partitionsSpec": {"type": "dynamic"}}
    return spec


def rows_per_hour(client: Any, datasource: str = DATASOURCE) -> dict[str, int]:
    rows = client.sql(
        f'SELECT TIME_FLOOR(__time, \'PT1H\') AS "hour", SUM("rows") AS "n" FROM "{datasource}" '
        f"WHERE __time >= TIMESTAMP '{WINDOW[0]}' AND __time < TIMESTAMP '{WINDOW[1]}' GROUP BY 1"
    )
    return {str(r["hour"]): int(r["n"]) for r in rows}


def test_berlin_days_day_segments_refused_hour_segments_keep_all_49_hours(real, spec_template, tmp_path):
    expected: dict[str, int] = {}
    inputs = []
    for run, interval in enumerate(RUNS, start=1):
        expected.update(write_run_input(tmp_path, run, interval))
        inputs.append(str(tmp_path / f"run{run}"))
    assert len(expected) == 49

    for interval, folder in zip(RUNS, inputs, strict=True):  # DAY: refused by the plan, nothing is sent
        with pytest.raises(SpecValidationError, match=r"is not aligned to segmentGranularity DAY"):
            build_plan(hourly_spec(spec_template, "DAY"), datasource=DATASOURCE, intervals=[interval],
                       input_locations=[folder])

    for interval, folder in zip(RUNS, inputs, strict=True):  # HOUR: both runs green, one after the other
        plan = build_plan(hourly_spec(spec_template, "HOUR"), datasource=DATASOURCE, intervals=[interval],
                          input_locations=[folder])
        result = real.ingest(plan, task_timeout=600, handoff_timeout=300, schedule=POLL)
        assert result.status.state == "SUCCESS" and result.handoff is not None, result

    deadline = time.monotonic() + 60  # the Broker's view can trail the Coordinator's by a moment
    got = rows_per_hour(real)
    while got != expected and time.monotonic() < deadline:
        time.sleep(1)
        got = rows_per_hour(real)
    assert got == expected, {h: (got.get(h), n) for h, n in expected.items() if got.get(h) != n}
    assert sum(got.values()) == sum(expected.values())


def test_the_opt_in_with_day_segments_loses_the_hours_the_refusal_names(real, spec_template, tmp_path):
    """The defect itself, measured: 49 hours sent, 27 readable; the 22 lost are the ones the refusal lists."""
    datasource = "e2e_align_days"
    sent: dict[str, int] = {}
    warnings = []
    for run, interval in enumerate(RUNS, start=1):
        sent.update(write_run_input(tmp_path, run, interval))
        plan = build_plan(hourly_spec(spec_template, "DAY"), datasource=datasource, intervals=[interval],
                          input_locations=[str(tmp_path / f"run{run}")], allow_unaligned=True)
        warnings += [w for w in plan.warnings if "not aligned" in w]
        result = real.ingest(plan, task_timeout=600, handoff_timeout=300, schedule=POLL)
        assert result.status.state == "SUCCESS", result  # green, both times
    assert "2026-10-24T00:00Z to 22:00Z" in warnings[1]  # run 2 names what it overwrites of run 1
    lost = {f"2026-10-24T{h:02d}:00:00.000Z" for h in range(22)}
    want = {hour: n for hour, n in sent.items() if hour not in lost}
    deadline = time.monotonic() + 60
    got = rows_per_hour(real, datasource)
    while got != want and time.monotonic() < deadline:
        time.sleep(1)
        got = rows_per_hour(real, datasource)
    assert (len(sent), len(got)) == (49, 27) and got == want
