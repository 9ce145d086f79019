"""Pure pieces of the fake: time/interval helpers, overshadowing, rules, and a fake clock."""

from __future__ import annotations

from druid_ingest.testing.fake_segments import FakeSegment, matching_rule, overshadowed_ids
from druid_ingest.testing.fake_specs import index_parallel_spec
from druid_ingest.testing.fake_state import ClusterState
from druid_ingest.testing.fake_tasks import parse_task
from druid_ingest.testing.fake_time import (
    bucket_of,
    buckets,
    format_instant,
    format_interval,
    parse_instant,
    parse_interval,
)


def test_instants_and_intervals():
    ms = parse_instant("2024-01-01T05:30:00+02:00")
    assert format_instant(ms) == "2024-01-01T03:30:00.000Z"
    assert parse_interval("2024-01-01_2024-01-02") == parse_interval("2024-01-01/P1D")
    assert format_interval(parse_interval("2024-02-28/P1M")) == (
        "2024-02-28T00:00:00.000Z/2024-03-28T00:00:00.000Z")


def test_buckets():
    day = parse_interval("2024-01-01/2024-01-02")
    assert buckets([day], "HOUR")[0] == parse_interval("2024-01-01T00/2024-01-01T01")
    assert len(buckets([day], "HOUR")) == 24
    assert format_interval(bucket_of(parse_instant("2024-05-17"), "YEAR")) == (
        "2024-01-01T00:00:00.000Z/2025-01-01T00:00:00.000Z")
    assert format_interval(bucket_of(parse_instant("2024-01-03"), "WEEK")) == (  # Joda weeks start Monday
        "2024-01-01T00:00:00.000Z/2024-01-08T00:00:00.000Z")
    assert format_interval(bucket_of(0, "ALL")) == (
        "-146136543-09-08T08:23:32.096Z/146140482-04-24T15:36:27.903Z")


def seg(interval, version, part=0):
    return FakeSegment(datasource="d", interval=parse_interval(interval), version=version, partition_num=part)


def test_overshadowing_needs_full_cover():
    old_month = seg("2024-01-01/2024-02-01", "v1")
    new_day = seg("2024-01-01/2024-01-02", "v2")
    assert overshadowed_ids([old_month, new_day]) == set()
    old_day = seg("2024-01-01/2024-01-02", "v1")
    new_month = seg("2024-01-01/2024-02-01", "v2")
    assert overshadowed_ids([old_day, new_month]) == {old_day.identifier}
    same = seg("2024-01-01/2024-01-02", "v1", part=1)
    assert overshadowed_ids([old_day, same]) == set()


def test_rules_matching():
    iv = parse_interval("2024-01-01/2024-01-02")
    now = parse_instant("2024-01-10")
    rules = [{"type": "loadByPeriod", "period": "P1D", "includeFuture": True,
              "tieredReplicants": {"_default_tier": 1}}, {"type": "dropForever"}]
    assert matching_rule(rules, iv, now)["type"] == "dropForever"
    rules[0]["period"] = "P30D"
    assert matching_rule(rules, iv, now)["type"] == "loadByPeriod"
    # Druid's default rule asks for 2 replicas (RECORDED.md §9)
    assert matching_rule([], iv, now) == {"type": "loadForever", "tieredReplicants": {"_default_tier": 2}}


class FakeClock:
    def __init__(self):
        self.t = 1_000.0

    def __call__(self):
        return self.t


def test_state_is_driven_by_clock_only():
    clock = FakeClock()
    state = ClusterState(task_duration=10, worker_capacity=2, handoff_delay=5, pending_delay=1,
                         coordinator_period=5, clock=clock)
    parsed = parse_task(index_parallel_spec(task_id="x"))
    task = state.insert_task("x", parsed, index_parallel_spec(task_id="x"), clock())
    assert task.runner_state == "WAITING"
    clock.t += 1
    state.now()
    assert task.runner_state == "RUNNING" and task.start_at == 1_001.0
    clock.t += 10
    state.now()
    assert task.state == "SUCCESS" and not state.served("wiki")
    clock.t += 5
    state.now()
    assert [s.served_at for s in state.served("wiki")] == [1_016.0]
