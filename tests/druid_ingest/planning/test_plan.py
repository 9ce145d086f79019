"""``build_plan``: the per-run values reach the rendered spec, and the plan's fields and line come from it."""

from __future__ import annotations

import json

from druid_ingest.planning._ids import base_task_id
from druid_ingest.planning._plan import build_plan

from tests.druid_ingest.sample_specs import day_spec

DAY = "2026-11-03T00:00:00Z/2026-11-04T00:00:00Z"


def _template() -> str:
    """The day spec as Jinja text whose baseDir comes from a variable."""
    spec = day_spec(dynamic=True)
    spec["spec"]["ioConfig"]["inputSource"]["baseDir"] = "{{ root }}/events"
    return json.dumps(spec)


def test_per_run_values_reach_the_rendered_spec() -> None:
    plan = build_plan(_template(), datasource="plan_ds", intervals=[DAY], variables={"root": "/lake"})
    schema = plan.spec["spec"]["dataSchema"]
    assert schema["dataSource"] == "plan_ds" and plan.datasource == "plan_ds"
    assert schema["granularitySpec"]["intervals"] == [DAY] and plan.intervals == (DAY,)
    assert plan.spec["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/lake/events"
    moved = build_plan(_template(), input_locations=["/elsewhere/2026-11-03"], variables={"root": "/lake"})
    assert moved.spec["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/elsewhere/2026-11-03"


def test_mode_task_id_and_the_log_line() -> None:
    plan = build_plan(_template(), intervals=[DAY], variables={"root": "/lake"})
    assert plan.mode == "REPLACE" and plan.append is False  # the day spec drops existing segments
    expected_id = base_task_id(plan.spec, "events_web", [DAY], None, "ingest")
    assert plan.base_task_id == expected_id and expected_id.startswith("ingest_")
    keyed = build_plan(_template(), intervals=[DAY], variables={"root": "/lake"}, idempotency_key="k",
                       id_prefix="nightly")
    assert keyed.base_task_id == base_task_id(keyed.spec, "events_web", [DAY], "k", "nightly")
    assert keyed.base_task_id.startswith("nightly_") and keyed.base_task_id != plan.base_task_id
    assert plan.describe() == (f"REPLACE into 'events_web' for {DAY}; {plan.peak_slots} Druid task slot(s) at peak; "
                               f"base task id {plan.base_task_id}")


def test_a_plan_without_intervals_says_the_data_decides() -> None:
    spec = day_spec(dynamic=True)
    spec["spec"]["ioConfig"].update(dropExisting=False, appendToExisting=True)
    del spec["spec"]["dataSchema"]["granularitySpec"]["intervals"]
    plan = build_plan(spec)
    assert plan.intervals == () and plan.mode == "APPEND" and plan.append is True
    assert plan.describe().startswith("APPEND into 'events_web' for the intervals in the data; ")
