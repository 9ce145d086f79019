"""The detection-latency target (``detect_within``): every end the history makes likely is seen within it, with
the fewest looks that can promise that; without history every gap is within it."""

from __future__ import annotations

import math
import time

import pytest
from druid_ingest import ClusterConfig, DruidClient
from druid_ingest.ops import PollSchedule
from druid_ingest.ops._history import CACHE, DurationHistory
from druid_ingest.ops._schedule import PredictedSchedule, fixed_delay
from druid_ingest.testing import FakeDruid, SimClock, TaskPlan
from druid_ingest.wire import RetryPolicy

from tests.druid_ingest.sample_specs import day_spec


def history(*durations: float) -> DurationHistory:
    made = DurationHistory.of(list(durations))
    assert made is not None
    return made


def looks(plan: PredictedSchedule, until: float) -> list[float]:
    """The look times (seconds of running) a wait following ``plan`` makes, counted as ``ops.waits`` does."""
    times, t, past = [0.0], 0.0, 0
    while t < until:
        past += t >= plan.window_end
        t += plan.next_delay(t, past)
        times.append(t)
    return times


def latency(times: list[float], end: float) -> float:
    return next(t for t in times if t >= end) - end


def test_without_history_every_gap_is_within_the_target_and_no_shorter_than_needed() -> None:
    no_target = [fixed_delay(PollSchedule(5, 60, 1.5), n) for n in range(1, 30)]
    assert max(no_target) == 60
    within = [fixed_delay(PollSchedule(5, 60, 1.5, detect_within=30), n) for n in range(1, 30)]
    assert within[0] == 5 and max(within) == 30 and within[-1] == 30
    wide = [fixed_delay(PollSchedule(5, 60, 1.5, detect_within=120), n) for n in range(1, 30)]
    assert max(wide) == 120  # a target above max_poll_interval is the cap: fewer reads, still within it


@pytest.mark.parametrize("target", [5.0, 30.0, 120.0])
@pytest.mark.parametrize("runs", [(588.0, 596.0, 600.0, 604.0, 611.0), (3530.0, 3580.0, 3600.0, 3650.0, 3671.0),
                                  (59.0, 60.0, 61.0), (300.0, 600.0, 900.0)])
def test_every_end_within_the_history_is_seen_within_the_target(target: float, runs: tuple[float, ...]) -> None:
    plan = PredictedSchedule(history(*runs), PollSchedule(5, 60, 1.5, detect_within=target))
    assert plan.step <= target
    times = looks(plan, plan.window_end + 2 * target)
    start, end = plan.window_start, plan.window_end
    assert start <= min(runs) and end >= max(runs)  # the window holds every run the history knows, and a margin
    for k in range(201):
        finish = start + (end - start) * k / 200
        assert latency(times, finish) <= target + 1e-9, (finish, times)


@pytest.mark.parametrize("target", [5.0, 30.0, 120.0])
def test_the_dense_looks_are_the_fewest_that_cover_the_window(target: float) -> None:
    plan = PredictedSchedule(history(3530.0, 3580.0, 3600.0, 3650.0, 3671.0),
                             PollSchedule(5, 60, 1.5, detect_within=target))
    times = looks(plan, plan.window_end + 1)
    dense = [t for t in times if plan.window_start < t <= plan.window_end + 1e-6]
    assert len(dense) == max(1, math.ceil((plan.window_end - plan.window_start) / target))
    assert dense[-1] == pytest.approx(plan.window_end)  # spread evenly: the last one at the window's end


def test_the_start_estimate_s_error_widens_the_window_on_both_sides() -> None:
    base = PredictedSchedule(history(590.0, 600.0, 610.0), PollSchedule(5, 60, 1.5, detect_within=5))
    unsure = PredictedSchedule(base.history, base.fallback, start_error=2.5)
    assert unsure.window_start == pytest.approx(base.window_start - 2.5)
    assert unsure.window_end == pytest.approx(base.window_end + 2.5)


def test_past_the_window_it_backs_off_but_never_below_the_target() -> None:
    plan = PredictedSchedule(history(590.0, 600.0, 610.0), PollSchedule(5, 60, 1.5, detect_within=120))
    past = max(plan.window_end, plan.first_look) + 1
    assert plan.next_delay(past, 1) == 120  # the cap is max(target, max_poll_interval)
    tight = PredictedSchedule(history(590.0, 600.0, 610.0), PollSchedule(1, 60, 1.5, detect_within=5))
    assert tight.next_delay(tight.window_end + 1, 1) == 5  # just past every known run: still the target
    assert tight.next_delay(tight.window_end + 9, 3) == pytest.approx(5 * 1.5**2)  # then the backoff
    assert tight.next_delay(tight.window_end + 1, 20) == 60


@pytest.mark.parametrize("target", [5.0, 30.0])
def test_a_ten_minute_wait_with_history_sees_the_end_within_the_target(target: float) -> None:
    """Simulated clock (the fake and the client share it): ten-minute tasks, +-2 %, ten of them as history."""
    import random

    CACHE.clear()
    clock, rng = SimClock(), random.Random(3)
    schedule = PollSchedule(5, 60, 1.5, detect_within=target)
    late = []
    with FakeDruid(clock=clock.now, task_duration=600, pending_delay=0.5) as fake:
        client = DruidClient(ClusterConfig(url=fake.url), RetryPolicy(jitter=False), clock=clock.now,
                             sleep=clock.sleep)
        for n in range(30):
            fake.plan_next_task(TaskPlan(duration=600 * rng.uniform(0.98, 1.02)))
            task_id = client.ensure_submitted(day_spec(), idempotency_key=f"target-{target}-{n}").task_id
            fake.clear_requests()
            outcome = client.watch_task(task_id, 3600, schedule)
            assert outcome.kind == "success"
            if n == 9:
                CACHE.clear()  # forget the warm-up's "no history yet"
            if n < 10:
                continue
            late.append(clock.now() - fake.task(task_id).finished_at )
        client.close()
    late.sort()
    assert late[math.ceil(0.95 * len(late)) - 1] <= target, late


def test_without_history_both_clients_see_the_end_within_the_target(fake_druid_factory, make_client) -> None:
    """Real time, the sync and the async client: a 3 s task, no history. Without the target the 3x backoff would
    look at ~2 s and ~6 s (about 3 s late); with ``detect_within=0.5`` every gap is at most 0.5 s."""
    CACHE.clear()
    fake: FakeDruid = fake_druid_factory(task_duration=3.0, pending_delay=0.0)
    client = make_client(fake.url)
    task_id = client.ensure_submitted(day_spec(), idempotency_key="no-history-target").task_id
    schedule = PollSchedule(0.05, 10.0, 3.0, detect_within=0.5)
    outcome = client.client.watch_task(task_id, 30, schedule, predict=False)
    if client.loop is not None:
        outcome = client.loop.run_until_complete(outcome)
    seen = time.time()
    assert outcome.kind == "success"
    finished = fake.task(task_id).finished_at
    assert finished is not None and seen - finished < 1.5, seen - finished


def test_a_resumed_wait_past_its_task_deadline_keeps_the_handoff_deadline() -> None:
    """A wait rebuilt after its task deadline (a trigger resumed late) whose task already SUCCEEDED gets the
    handoff until ``task_deadline + handoff_timeout``, never ``now + handoff_timeout`` (that would let every
    rebuild extend the wait). Simulated clock: the gate never completes (loading paused)."""
    clock = SimClock()
    with FakeDruid(clock=clock.now, task_duration=5, pending_delay=0.5) as fake:
        fake.pause_loading()
        with DruidClient(ClusterConfig(url=fake.url), RetryPolicy(jitter=False), clock=clock.now,
                         sleep=clock.sleep) as client:
            task_id = client.ensure_submitted(day_spec(), idempotency_key="late-resume").task_id
            task_deadline = clock.now() + 60
            clock.sleep(100)  # the task ended long ago; the wait is rebuilt 40 s past its task deadline
            outcome = client.watch_ingestion(task_id, "", [], False, task_deadline=task_deadline,
                                             handoff_timeout=120, schedule=PollSchedule(5, 10, 1.5), predict=False)
    assert outcome.task.kind == "success" and outcome.handoff is not None and outcome.handoff.kind == "timeout"
    assert clock.now() == pytest.approx(task_deadline + 120, abs=0.5)  # not task_deadline + 40 + 120
