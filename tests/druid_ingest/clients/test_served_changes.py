"""The served-changes watch against the fake Druid over real HTTP, with both clients: what one look reports and
what it costs (one request without change, two with)."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable

import pytest
from druid_ingest.errors import DruidUsageError
from druid_ingest.ops import ChangeBatch, ServedChange, WatchCursor
from druid_ingest.planning import build_compaction_plan
from druid_ingest.testing import FakeDruid

from tests.druid_ingest.sample_specs import day_spec

DS = "events_web"
D1 = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
D2 = "2026-11-02T00:00:00.000Z/2026-11-03T00:00:00.000Z"
TWO_DAYS = "2026-11-01T00:00:00.000Z/2026-11-03T00:00:00.000Z"
MONTH = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"


@pytest.fixture()
def fake(fake_druid_factory) -> FakeDruid:
    return fake_druid_factory(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0)


def settle(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the fake Druid did not get there"
        time.sleep(0.05)


def look(fake: FakeDruid, client, cursor: WatchCursor | None) -> tuple[ChangeBatch, int]:
    """One look, and how many requests it sent."""
    fake.clear_requests()
    batch = client.served_changes(DS, None, cursor)
    return batch, len(fake.requests)


def test_an_ingestion_is_one_change_and_a_look_after_it_one_request(fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    empty, cost = look(fake, client, None)
    assert (empty.changes, cost) == ((), 1)
    result = client.ingest(day_spec("2026-11-01"), task_timeout=20, handoff_timeout=20)
    batch, cost = look(fake, client, empty.cursor)
    assert batch.changes == (ServedChange("served", D1, result.handoff.version, "ingestion", ()),) and cost == 2
    again, cost = look(fake, client, WatchCursor.from_json(batch.cursor.to_json()))  # as a restart reads it back
    assert (again.changes, cost) == ((), 1)
    # each batch names its look by the served fingerprints before and after it (a redelivery has the same key)
    assert batch.key == f"{empty.cursor.served}>{batch.cursor.served}" != empty.key
    assert again.key == f"{batch.cursor.served}>{batch.cursor.served}"
    assert "/druid/coordinator/v1/datasources/events_web/intervals/" in fake.requests[0].path


def test_from_now_makes_what_is_served_the_baseline_only_on_a_first_look(fake: FakeDruid, make_client) -> None:
    """The core's first-look rule through the client: the same looks and cursor, no changes reported; with a
    cursor ``from_now`` changes nothing (a watcher passes it on every look)."""
    client = make_client(fake.url)
    client.ingest(day_spec("2026-11-01"), task_timeout=20, handoff_timeout=20)
    fake.clear_requests()
    baseline = client.served_changes(DS, None, None, from_now=True)
    assert baseline.changes == () and len(fake.requests) == 2
    assert baseline.cursor == client.served_changes(DS, None, None).cursor
    result = client.ingest(day_spec("2026-11-02"), task_timeout=20, handoff_timeout=20)
    batch = client.served_changes(DS, None, baseline.cursor, from_now=True)
    assert batch.changes == (ServedChange("served", D2, result.handoff.version, "ingestion", ()),)


def test_a_compaction_day_to_month_is_one_batch_naming_it(fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    days = [client.ingest(day_spec(d), task_timeout=20, handoff_timeout=20) for d in ("2026-11-01", "2026-11-02")]
    before, _ = look(fake, client, None)
    assert [c.interval for c in before.changes] == [D1, D2]
    compaction = client.ingest(build_compaction_plan(DS, MONTH, segment_granularity="MONTH"), task_timeout=20,
                               handoff_timeout=20)
    batch, cost = look(fake, client, before.cursor)
    replaced = tuple(d.handoff.version for d in days)
    assert batch.changes == (ServedChange("served", MONTH, compaction.handoff.version, "compaction", replaced),)
    assert cost == 2


def test_a_drop_is_a_chunk_no_longer_served(fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    days = [client.ingest(day_spec(d), task_timeout=20, handoff_timeout=20) for d in ("2026-11-01", "2026-11-02")]
    before, _ = look(fake, client, None)
    assert fake.mark_unused(DS, D1) == 1
    settle(lambda: not any("2026-11-01T" in i for i in fake.served_segment_ids(DS)))
    batch, _ = look(fake, client, before.cursor)
    assert batch.changes == (ServedChange("dropped", D1, None, None, (days[0].handoff.version,)),)


def test_a_half_loaded_version_is_reported_once_whole(fake: FakeDruid, make_client) -> None:
    """A two-day replace whose second day cannot load yet (a load rule for the first day only) is not a change;
    once the rule lets the second day load, one change covers both days."""
    client = make_client(fake.url)
    fake.set_rules(DS, [{"type": "loadByInterval", "interval": D1, "tieredReplicants": {"_default_tier": 1}},
                        {"type": "dropForever"}])
    spec = copy.deepcopy(day_spec("2026-11-01"))
    spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = [TWO_DAYS]
    task = client.ensure_submitted(spec).task_id
    client.wait_for_task(task, timeout=20)
    version = fake.task(task).version
    settle(lambda: len(fake.served_segment_ids(DS)) == 1)
    half, cost = look(fake, client, None)
    assert (half.changes, cost) == ((), 2)  # the served ids changed, so the metadata was read: no whole version
    fake.set_rules(DS, [])
    settle(lambda: len(fake.served_segment_ids(DS)) == 2)
    whole, _ = look(fake, client, half.cursor)
    assert whole.changes == (ServedChange("served", TWO_DAYS, version, "ingestion", ()),)


def test_a_cursor_of_another_watch_is_refused_before_any_request(fake: FakeDruid, make_client) -> None:
    client = make_client(fake.url)
    cursor = client.served_changes(DS, D1, None).cursor
    fake.clear_requests()
    with pytest.raises(DruidUsageError, match=r"the watch cursor's window is '2026-11-01T00:00:00\.000Z/"):
        client.served_changes(DS, D2, cursor)
    with pytest.raises(DruidUsageError, match="the watch cursor's datasource is 'events_web', not 'other'"):
        client.served_changes("other", D1, cursor)
    assert client.served_changes(DS, "2026-11-01/2026-11-02", cursor).changes == ()  # same window, other spelling
    assert len(fake.requests) == 1
