"""The fake's time-chunk lock checks (``fake_locks``): which intervals a task locks, who blocks whom."""

from __future__ import annotations

from druid_ingest.testing.fake_locks import active_locks, can_lock, lock_intervals
from druid_ingest.testing.fake_specs import index_parallel_spec
from druid_ingest.testing.fake_state import ClusterState
from druid_ingest.testing.fake_tasks import FakeTask, parse_task
from druid_ingest.testing.fake_time import parse_interval


def state() -> ClusterState:
    return ClusterState(task_duration=10, worker_capacity=4, handoff_delay=5, pending_delay=0,
                        coordinator_period=5, clock=lambda: 1_000.0)


def submit(cluster: ClusterState, task_id: str, datasource: str, intervals: list[str]) -> FakeTask:
    spec = index_parallel_spec(datasource=datasource, intervals=intervals, task_id=task_id)
    return cluster.insert_task(task_id, parse_task(spec), spec, 1_000.0)


def test_adjacent_day_buckets_are_one_lock_and_a_gap_keeps_two() -> None:
    cluster = state()
    task = submit(cluster, "a", "wiki", ["2024-01-01/2024-01-03", "2024-01-05/2024-01-06"])
    assert lock_intervals(task) == [parse_interval("2024-01-01/2024-01-03"), parse_interval("2024-01-05/2024-01-06")]


def test_an_overlapping_lock_blocks_only_its_own_datasource() -> None:
    cluster = state()
    first = submit(cluster, "first", "wiki", ["2024-01-01/2024-01-02"])
    cluster.now()  # the first one takes its lock
    assert first.locks and first.runner_state == "RUNNING"
    same_day = submit(cluster, "same_day", "wiki", ["2024-01-01/2024-01-02"])
    other_day = submit(cluster, "other_day", "wiki", ["2024-01-02/2024-01-03"])
    other_ds = submit(cluster, "other_ds", "pages", ["2024-01-01/2024-01-02"])
    assert not can_lock(cluster.index, same_day)
    assert can_lock(cluster.index, other_day) and can_lock(cluster.index, other_ds)
    cluster.now()
    assert same_day.runner_state == "WAITING" and not same_day.locks
    holders = active_locks(cluster.index, "wiki", [parse_interval("2024-01-01/2024-01-02")])
    assert [t.id for t in holders] == ["first"]
    assert [t.id for t in active_locks(cluster.index, "wiki", None)] == ["first", "other_day"]
