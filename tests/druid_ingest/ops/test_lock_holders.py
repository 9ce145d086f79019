"""A task waiting for its locks says whose they are (issue 29: "a kill queued behind an ingestion lock names the
holder"). Against the fake Druid on a simulated clock, so a ten-minute ingestion takes a moment."""

from __future__ import annotations

from druid_ingest import ClusterConfig, DruidClient, RetryPolicy
from druid_ingest.api import TaskLock, TaskStatus
from druid_ingest.ops import PollSchedule
from druid_ingest.ops._lock_holders import HOLDERS_AFTER, HOLDERS_EVERY, holders_line
from druid_ingest.ops.waits import TaskProgress
from druid_ingest.planning import build_kill_plan
from druid_ingest.testing import FakeDruid, SimClock, TaskPlan

from tests.druid_ingest.sample_specs import day_spec

DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
WAITING = TaskStatus("kill_1", "RUNNING", runner_state="WAITING", datasource="events_web")


def lock(group: str, interval: str = DAY, priority: int | None = 50, revoked: bool = False) -> TaskLock:
    return TaskLock(group, "events_web", interval, "2026-12-01T00:00:00.000Z", "EXCLUSIVE", revoked, priority)


def test_the_line_names_other_groups_holders_only() -> None:
    assert holders_line(WAITING, [lock("index_a")]) == (
        f"waiting for the time-chunk lock held by task index_a ({DAY}, priority 50)")
    assert holders_line(WAITING, [lock("kill_1"), lock("index_a", revoked=True)]) == ""  # its own; a revoked one
    both = holders_line(WAITING, [lock("index_b", priority=None), lock("compact_c", "2026-11-02/2026-11-03", 25)])
    assert both == ("waiting for the time-chunk locks held by task compact_c (2026-11-02/2026-11-03, priority 25); "
                    f"task index_b ({DAY})")


def test_the_progress_line_says_it() -> None:
    line = TaskProgress(WAITING, waiting_on="waiting for the time-chunk lock held by task index_a").line()
    assert line == "Druid task kill_1 WAITING: waiting for the time-chunk lock held by task index_a"


def test_a_kill_queued_behind_an_ingestion_names_it_and_an_ordinary_wait_never_asks() -> None:
    clock = SimClock()
    with FakeDruid(clock=clock.now, task_duration=600, pending_delay=0.5, handoff_delay=1) as fake:
        client = DruidClient(ClusterConfig(url=fake.url), RetryPolicy(jitter=False), clock=clock.now,
                             sleep=clock.sleep)
        fake.plan_next_task(TaskPlan(duration=600))
        ingestion = client.ensure_submitted(day_spec()).task_id
        kill = client.ensure_submitted(build_kill_plan("events_web", DAY)).task_id
        fake.clear_requests()
        lines: list[str] = []
        status = client.wait_for_task(kill, 3600, PollSchedule(1, 30, 2),
                                      on_progress=lambda p: lines.append(p.line()))
        assert status.state == "SUCCESS"
        named = [line for line in lines if f"held by task {ingestion} ({DAY}, priority 50)" in line]
        assert named and all(" WAITING: " in line for line in named), lines
        asks = [r for r in fake.requests if r.path.endswith("/activeLocks")]
        # after HOLDERS_AFTER seconds of waiting, then every HOLDERS_EVERY (plus the lock ceiling's one read)
        waited = fake.task(kill).start_at - fake.task(kill).created_at
        assert len(asks) - 1 == 1 + int((waited - HOLDERS_AFTER) // HOLDERS_EVERY), (len(asks), waited)

        fake.plan_next_task(TaskPlan(duration=30))
        alone = client.ensure_submitted(day_spec("2026-11-05")).task_id
        fake.clear_requests()
        assert client.wait_for_task(alone, 3600, PollSchedule(1, 30, 2)).state == "SUCCESS"
        assert len([r for r in fake.requests if r.path.endswith("/activeLocks")]) == 1  # its ceiling only
        client.close()


def test_a_status_without_a_datasource_asks_nothing() -> None:
    from druid_ingest.ops._lock_holders import lock_holders

    op = lock_holders(TaskStatus("kill_1", "RUNNING", runner_state="WAITING"))
    try:
        request = next(op)
    except StopIteration as done:
        assert done.value == ""
    else:
        raise AssertionError(f"asked {request!r} without a datasource to ask about")
