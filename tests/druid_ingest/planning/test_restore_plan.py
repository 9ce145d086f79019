"""Restore on the segment-write seam: mark one dropped interval used again (Druid's markUsed), green only once
every segment visible there is served and routed; checked before any HTTP, safe to retry, and the API picked by
the version, as the drop's."""

from __future__ import annotations

import json

import pytest
from druid_ingest.errors import (
    DruidNothingToRestoreError,
    DruidUsageError,
    DruidWaitTimeoutError,
    SpecValidationError,
    is_fatal,
)
from druid_ingest.ops import PollSchedule
from druid_ingest.planning import build_drop_plan, build_restore_plan
from druid_ingest.testing import FakeDruid, Fault

from tests.druid_ingest.sample_specs import day_spec

DS = "events_web"
DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
FAST = PollSchedule(0.01, 0.05)


def test_every_problem_is_named_before_any_http() -> None:
    with pytest.raises(SpecValidationError, match="invalid restore request") as refused:
        build_restore_plan("", "2026-11-02/2026-11-01")
    assert [p.path for p in refused.value.problems] == ["datasource", "interval"]
    assert "the datasource to restore" in str(refused.value)


def test_the_plan_is_one_mark_used_request_not_a_task() -> None:
    plan = build_restore_plan(DS, "2026-11-01/2026-11-02")
    assert plan == build_restore_plan(DS, DAY) and plan.base_task_id.startswith("restore_events_web_")
    assert (plan.kind, plan.mode, plan.runs_task, plan.publishes, plan.wants_served) == (
        "restore", "RESTORE", False, False, True)
    request = plan.submit_request(plan.base_task_id)
    assert (request.method, request.service, request.path, request.json_body) == (
        "POST", "overlord", f"/druid/indexer/v1/datasources/{DS}/markUsed", {"interval": DAY})
    assert build_restore_plan(DS, DAY, idempotency_key="again").base_task_id != plan.base_task_id


@pytest.fixture()
def fake(fake_druid_factory) -> FakeDruid:
    return fake_druid_factory(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0)


def test_a_dropped_day_is_served_again_and_a_retry_changes_nothing(fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    client.ingest(day_spec("2026-11-01"), task_timeout=20, handoff_timeout=20)
    [segment] = fake.served_segment_ids(DS)
    client.segment_write(build_drop_plan(DS, DAY), timeout=20, schedule=FAST)
    assert fake.served_segment_ids(DS) == set()
    lines: list[str] = []
    restored = client.segment_write(build_restore_plan(DS, DAY), timeout=20, schedule=FAST, on_progress=lines.append)
    assert (restored.marked, restored.served, restored.wants_served) == (1, 1, True)
    assert "1 segment(s) marked used by this run; the 1 data segment(s) visible in the interval are served" in (
        restored.detail)
    assert fake.served_segment_ids(DS) == {segment}
    assert "marking used through the Overlord's API" in lines[0]
    assert any("not served yet" in line for line in lines[1:])  # it waited for the Coordinator's load
    again = client.segment_write(build_restore_plan(DS, DAY), timeout=20, schedule=FAST)
    assert (again.marked, again.served) == (0, 1)


def test_nothing_to_restore_fails_closed_after_one_look_unless_allow_empty(fake: FakeDruid, make_client) -> None:
    """Druid answers markUsed of an interval it holds nothing of with 0 changed (never ingested, or killed): the
    wait must not call that served. One listing of the metadata store tells, so it fails at once, for good."""
    client = make_client(fake.url)
    with pytest.raises(DruidNothingToRestoreError, match="pass allow_empty=True") as refused:
        client.segment_write(build_restore_plan(DS, DAY), timeout=20, schedule=FAST)
    assert (refused.value.datasource, refused.value.interval, refused.value.marked) == (DS, DAY, 0)
    assert is_fatal(refused.value) and "no segment marked used" in str(refused.value)
    assert [r.path for r in fake.requests_matching("GET") if "/coordinator/v1/datasources/" in r.path] == []
    empty = client.segment_write(build_restore_plan(DS, DAY, allow_empty=True), timeout=20, schedule=FAST)
    assert (empty.marked, empty.served) == (0, 0)
    assert "nothing to restore" in empty.detail and "allow_empty=True" in empty.detail
    assert build_restore_plan(DS, DAY, allow_empty=True).base_task_id == build_restore_plan(DS, DAY).base_task_id


def test_an_older_version_under_a_dropped_newer_one_stays_unused(fake: FakeDruid, make_client) -> None:
    """markUsed marks only what no other segment of the interval overshadows: the newer day comes back, the
    older one under it does not (Druid's markNonOvershadowedSegmentsAsUsed)."""
    older = fake.preload_segments(DS, DAY, "2026-11-10T00:00:00.000Z")
    newer = fake.preload_segments(DS, DAY, "2026-11-20T00:00:00.000Z")
    client = make_client(fake.url)
    assert fake.mark_unused(DS, DAY) == 2
    restored = client.segment_write(build_restore_plan(DS, DAY), timeout=20, schedule=FAST)
    assert (restored.marked, restored.served) == (1, 1)
    used = {s["identifier"] for s in fake.used_segments(DS)}
    assert newer[0]["identifier"] in used and older[0]["identifier"] not in used


def test_the_wait_names_what_is_not_served_at_the_deadline(fake: FakeDruid, make_client) -> None:
    fake.preload_segments(DS, DAY, "2026-11-20T00:00:00.000Z")
    client = make_client(fake.url)
    fake.mark_unused(DS, DAY)
    fake.add_fault(Fault(method="GET", path=r"/coordinator/v1/datasources/events_web/intervals/", kind="status",
                         status=200, body=json.dumps([]), content_type="application/json", times=None))
    with pytest.raises(DruidWaitTimeoutError, match=f"1 of 1 segment\\(s\\) visible in {DAY} not served yet"):
        client.segment_write(build_restore_plan(DS, DAY), timeout=0.3, schedule=FAST)


def test_the_broker_must_route_to_them_too(fake: FakeDruid, make_client) -> None:
    fake.preload_segments(DS, DAY, "2026-11-20T00:00:00.000Z")
    client = make_client(fake.url)
    fake.mark_unused(DS, DAY)
    fake.add_fault(Fault(method="GET", path=r"/druid/v2/datasources/events_web/candidates", kind="status",
                         status=200, body="[]", content_type="application/json", times=2))
    lines: list[str] = []
    client.segment_write(build_restore_plan(DS, DAY), timeout=20, schedule=FAST, on_progress=lines.append)
    assert sum("the Broker does not route queries of 1 piece(s)" in line for line in lines) == 2


def test_a_restore_is_not_submitted_as_a_task(fake: FakeDruid, make_client) -> None:
    with pytest.raises(DruidUsageError, match="is not a Druid task"):
        make_client(fake.url).ensure_submitted(build_restore_plan(DS, DAY))


@pytest.mark.parametrize(("version", "path"), [
    ("31.0.2", f"/druid/coordinator/v1/datasources/{DS}/markUsed"),
    ("33.0.0", f"/druid/indexer/v1/datasources/{DS}/markUsed"),
])
def test_the_api_is_picked_by_the_version(fake_druid_factory, make_client, version: str, path: str) -> None:
    fake = fake_druid_factory(version=version, handoff_delay=0.05)
    fake.preload_segments(DS, DAY, "2026-11-20T00:00:00.000Z")
    fake.mark_unused(DS, DAY)
    result = make_client(fake.url).segment_write(build_restore_plan(DS, DAY), timeout=10, schedule=FAST)
    assert result.marked == 1
    assert [r.path for r in fake.requests_matching("POST") if r.path.endswith("/markUsed")] == [path]
