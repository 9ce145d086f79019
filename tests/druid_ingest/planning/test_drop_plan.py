"""Drop on the Plan seam: mark one interval unused (the Overlord's markUnused), green only once nothing in it is
served; checked before any HTTP, safe to retry, and refused when it would cut a segment that then stays served."""

from __future__ import annotations

import pytest
from druid_ingest.errors import DruidUsageError, SpecValidationError
from druid_ingest.ops import PollSchedule
from druid_ingest.planning import build_drop_plan
from druid_ingest.testing import FakeDruid

from tests.druid_ingest.sample_specs import day_spec

DS = "events_web"
DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
NEXT = "2026-11-02T00:00:00.000Z/2026-11-03T00:00:00.000Z"


def test_every_problem_is_named_before_any_http() -> None:
    with pytest.raises(SpecValidationError, match="invalid drop request") as refused:
        build_drop_plan(" ", "yesterday")
    assert [p.path for p in refused.value.problems] == ["datasource", "interval"]


def test_the_plan_is_one_request_not_a_task() -> None:
    plan = build_drop_plan(DS, "2026-11-01/2026-11-02")
    assert plan == build_drop_plan(DS, DAY)  # one name for the same instants
    assert (plan.kind, plan.mode, plan.runs_task, plan.publishes, plan.peak_slots) == ("drop", "DROP", False, False, 0)
    request = plan.submit_request(plan.base_task_id)
    assert (request.method, request.service, request.path, request.json_body) == (
        "POST", "overlord", f"/druid/indexer/v1/datasources/{DS}/markUnused", {"interval": DAY})


@pytest.fixture()
def fake(fake_druid_factory) -> FakeDruid:
    return fake_druid_factory(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0)


def ingest_days(client, *days: str) -> None:
    for day in days:
        client.ingest(day_spec(day), task_timeout=20, handoff_timeout=20)


def test_a_drop_unserves_the_day_leaves_the_next_and_a_retry_changes_nothing(fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    ingest_days(client, "2026-11-01", "2026-11-02")
    plan = build_drop_plan(DS, DAY)
    lines: list[str] = []
    first = client.segment_write(plan, timeout=20, on_progress=lines.append)
    assert (first.marked, first.interval) == (1, DAY) and "nothing in the interval is served" in first.detail
    served = fake.served_segment_ids(DS)
    assert not [i for i in served if "2026-11-01T" in i] and [i for i in served if "2026-11-02T" in i]  # next day kept
    again = client.segment_write(plan, timeout=20)  # a retried or cleared task
    assert again.marked == 0 and again.interval == DAY


def test_an_interval_that_cuts_a_served_segment_is_refused_and_nothing_is_marked(fake: FakeDruid,
                                                                                 make_client) -> None:
    month = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"
    fake.preload_segments(DS, month, "2026-11-20T00:00:00.000Z", 1)
    client = make_client(fake.url)
    with pytest.raises(DruidUsageError, match="would leave 1 segment\\(s\\) served") as refused:
        client.segment_write(build_drop_plan(DS, DAY), timeout=5)
    assert f"Mark {month} unused" in str(refused.value) and "nothing was marked unused" in str(refused.value)
    assert len(fake.served_segment_ids(DS)) == 1


def test_a_drop_is_not_submitted_as_a_task(fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    with pytest.raises(DruidUsageError, match="is not a Druid task"):
        client.ensure_submitted(build_drop_plan(DS, DAY))
    assert not fake.requests_matching("POST", "/druid/indexer/v1/task")


def test_the_drop_waits_while_the_coordinator_or_the_broker_still_serves_the_day(fake: FakeDruid, make_client) -> None:
    """Druid unloads at its next Coordinator run and the Broker hears of it after that: the first two inventory
    looks still list the day's segment, then the Broker still routes to it once; only then is the drop green."""
    import json

    from druid_ingest.testing import Fault

    client = make_client(fake.url)
    ingest_days(client, "2026-11-01")
    [segment] = fake.served_segment_ids(DS)
    fake.clear_requests()
    fake.add_fault(Fault(method="GET", path=r"/coordinator/v1/datasources/events_web/intervals/", kind="status",
                         status=200, body=json.dumps([segment]), content_type="application/json", times=2))
    candidate = [{"interval": DAY, "version": "2026-12-01T00:00:00.000Z", "partitionNumber": 0, "size": 100,
                  "locations": [{"name": "h1:8083", "host": "h1:8083", "type": "historical", "tier": "_default_tier",
                                 "priority": 0}]}]
    fake.add_fault(Fault(method="GET", path=r"/druid/v2/datasources/events_web/candidates", kind="status",
                         status=200, body=json.dumps(candidate), content_type="application/json", times=1))
    lines: list[str] = []
    result = client.segment_write(build_drop_plan(DS, DAY), timeout=20, schedule=PollSchedule(0.01, 0.05),
                                  on_progress=lines.append)
    assert result.marked == 1
    assert [line.split(": ", 1)[1] for line in lines] == [
        f"Druid 33.0.0 at {fake.url}: marking unused through the Overlord's API (Druid 32 and later)",
        f"1 segment(s) still served in {DAY}", f"1 segment(s) still served in {DAY}",
        f"the Broker still routes queries of {DAY} to 1 segment(s)"]
    # the Broker is asked only once the Coordinator serves nothing there: the third and fourth looks
    assert len(fake.requests_matching("GET", "/druid/v2/datasources/events_web/candidates")) == 2


def test_a_drop_that_stays_served_times_out_naming_what_is_served(fake: FakeDruid, make_client) -> None:
    import json

    from druid_ingest.errors import DruidWaitTimeoutError
    from druid_ingest.testing import Fault

    client = make_client(fake.url)
    ingest_days(client, "2026-11-01")
    [segment] = fake.served_segment_ids(DS)
    fake.add_fault(Fault(method="GET", path=r"/coordinator/v1/datasources/events_web/intervals/", kind="status",
                         status=200, body=json.dumps([segment]), content_type="application/json", times=None))
    with pytest.raises(DruidWaitTimeoutError, match=f"1 segment\\(s\\) still served in {DAY} at the deadline"):
        client.segment_write(build_drop_plan(DS, DAY), timeout=0.3, schedule=PollSchedule(0.01, 0.05))


def test_an_older_segment_the_drop_would_uncover_is_refused_too(fake: FakeDruid, make_client) -> None:
    """A two-day segment under a newer day: markUnused of the day leaves the two-day one (not inside the day),
    and with the newer day gone it is what queries read there again."""
    fake.preload_segments(DS, "2026-10-31/2026-11-02", "2026-11-10T00:00:00.000Z")
    fake.preload_segments(DS, DAY, "2026-11-20T00:00:00.000Z")
    client = make_client(fake.url)
    with pytest.raises(DruidUsageError, match="would leave 1 segment") as refused:
        client.segment_write(build_drop_plan(DS, DAY), timeout=5)
    text = str(refused.value)
    assert "ds_" not in text and "2026-10-31T00:00:00.000Z_2026-11-02T00:00:00.000Z" in text
    assert "Mark 2026-10-31T00:00:00.000Z/2026-11-02T00:00:00.000Z unused (the smallest interval holding them)" in text
    assert len(fake.served_segment_ids(DS)) == 2  # nothing was marked


def test_the_refusal_lists_five_segments_then_elides(fake: FakeDruid, make_client) -> None:
    fake.preload_segments(DS, "2026-11-01/2026-12-01", "2026-11-20T00:00:00.000Z", partitions=7)
    client = make_client(fake.url)
    with pytest.raises(DruidUsageError) as refused:
        client.segment_write(build_drop_plan(DS, DAY), timeout=5)
    listed = str(refused.value).split("these reach outside it: ")[1].split(". Mark ")[0]
    assert listed.endswith(" ...") and listed.count(", ") == 4 and "would leave 7 segment(s)" in str(refused.value)
