"""``druid_served_sensor`` against the fake Druid over real HTTP: a tick is one look of the core's served watch,
each newly served partition one run request, the cursor the sensor's own; a re-evaluated tick (its cursor lost)
asks for the same run keys, which Dagster launches once."""

from __future__ import annotations

import dagster as dg
import pytest
from dagster_druid_ingest import daily_partitions, druid_served_sensor
from druid_ingest.planning import build_drop_plan, build_plan
from druid_ingest.testing import FakeDruid

from tests.druid_ingest.sample_specs import day_spec

from .conftest import fast_resource

DS = "events_web"
DAYS = daily_partitions("2026-10-01", "2026-12-01")


@dg.op
def noop() -> None:
    pass


@dg.job(partitions_def=DAYS)
def downstream() -> None:
    noop()


def tick(sensor: dg.SensorDefinition, fake: FakeDruid, cursor: str | None) -> dg.SensorResult:
    with dg.build_sensor_context(cursor=cursor, resources={"druid": fast_resource(fake.url)}) as context:
        result = sensor(context)
    assert isinstance(result, dg.SensorResult)
    return result


def ingest(fake: FakeDruid, *days: str, key: str | None = None) -> None:
    with fast_resource(fake.url).get_client() as client:
        for day in days:
            client.ingest(build_plan(day_spec(day), idempotency_key=key), task_timeout=20, handoff_timeout=20)


@pytest.fixture()
def fake(fake_druid_factory) -> FakeDruid:
    return fake_druid_factory(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0)


def test_each_newly_served_day_is_one_run_and_a_quiet_tick_costs_one_request(fake: FakeDruid) -> None:
    sensor = druid_served_sensor("events_served", datasource=DS, target=downstream, partitions_def=DAYS)
    first = tick(sensor, fake, None)
    assert first.run_requests == [] and first.cursor  # nothing served yet: no run, a cursor all the same

    ingest(fake, "2026-11-01", "2026-11-02")
    second = tick(sensor, fake, first.cursor)
    assert [r.partition_key for r in second.run_requests or []] == ["2026-11-01", "2026-11-02"]
    keys = [r.run_key for r in second.run_requests or []]
    assert len(set(keys)) == 2

    again = tick(sensor, fake, first.cursor)  # the same tick evaluated again (its cursor was never saved)
    assert [r.run_key for r in again.run_requests or []] == keys  # Dagster skips run keys it has launched

    fake.clear_requests()
    quiet = tick(sensor, fake, second.cursor)
    assert quiet.run_requests == [] and quiet.cursor == second.cursor and len(fake.requests) == 1

    ingest(fake, "2026-11-02", key="rerun")  # a re-ingestion under a new key: a new version of the day
    replaced = tick(sensor, fake, second.cursor)
    assert [r.partition_key for r in replaced.run_requests or []] == ["2026-11-02"]
    assert replaced.run_requests and replaced.run_requests[0].run_key not in keys


def test_a_drop_requests_runs_only_when_asked_to(fake: FakeDruid) -> None:
    ingest(fake, "2026-11-01")
    served_only = druid_served_sensor("served_only", datasource=DS, target=downstream, partitions_def=DAYS)
    with_drops = druid_served_sensor("with_drops", datasource=DS, target=downstream, partitions_def=DAYS,
                                     on=("served", "appended", "dropped"))
    start = tick(served_only, fake, None).cursor
    with fast_resource(fake.url).get_client() as client:
        client.segment_write(build_drop_plan(DS, "2026-11-01/2026-11-02"), timeout=20)
    assert tick(served_only, fake, start).run_requests == []
    dropped = tick(with_drops, fake, start)
    assert [r.partition_key for r in dropped.run_requests or []] == ["2026-11-01"]


def test_unpartitioned_one_run_per_batch(fake: FakeDruid) -> None:
    @dg.job
    def refresh() -> None:
        noop()

    sensor = druid_served_sensor("refresh_on_druid", datasource=DS, target=refresh, window="2026-11-01/2026-12-01")
    start = tick(sensor, fake, None).cursor
    ingest(fake, "2026-11-01", "2026-11-02")
    result = tick(sensor, fake, start)
    assert len(result.run_requests or []) == 1 and result.run_requests[0].partition_key is None
    assert result.run_requests[0].tags["druid/datasource"] == DS


def test_from_now_the_first_tick_records_what_is_served_and_runs_nothing(fake: FakeDruid) -> None:
    """The core's first-look rule: without a cursor, ``from_now`` takes what is served as the baseline."""
    ingest(fake, "2026-11-01")
    everything = druid_served_sensor("everything", datasource=DS, target=downstream, partitions_def=DAYS)
    from_now = druid_served_sensor("from_now", datasource=DS, target=downstream, partitions_def=DAYS, from_now=True)
    assert [r.partition_key for r in tick(everything, fake, None).run_requests or []] == ["2026-11-01"]
    first = tick(from_now, fake, None)
    assert first.run_requests == [] and first.cursor
    ingest(fake, "2026-11-02")
    assert [r.partition_key for r in tick(from_now, fake, first.cursor).run_requests or []] == ["2026-11-02"]
