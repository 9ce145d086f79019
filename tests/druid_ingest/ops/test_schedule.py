"""Predictive polling: history from Druid's task list, the schedule it implies, and a wait that follows it."""

from __future__ import annotations

import pytest
from druid_ingest.api._models import TaskStatus
from druid_ingest.ops._history import CACHE, DurationHistory, HistoryCache, WaitMemory, ingestion_durations
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.ops._schedule import PredictedSchedule, run_groups
from druid_ingest.testing import FakeDruid, TaskPlan

from tests.druid_ingest.sample_specs import day_spec


def history(*durations: float) -> DurationHistory:
    made = DurationHistory.of(list(durations))
    assert made is not None
    return made


def test_history_needs_a_few_successful_ingestions_and_ignores_subtasks() -> None:
    assert DurationHistory.of([600.0, 610.0]) is None
    h = history(*[600.0] * 19, 660.0)
    assert (h.low, h.median, h.high, h.longest) == (600.0, 600.0, 600.0, 660.0)
    tasks = [TaskStatus("a", "SUCCESS", duration_ms=600_000, task_type="index_parallel", group_id="a"),
             TaskStatus("b", "FAILED", duration_ms=5_000, task_type="index_parallel", group_id="b"),
             TaskStatus("p", "SUCCESS", duration_ms=1_000, task_type="partial_index_generate", group_id="a"),
             TaskStatus("s", "SUCCESS", duration_ms=2_000, task_type="index_parallel", group_id="a")]
    assert ingestion_durations(tasks) == [600.0]


def test_sparse_early_dense_at_the_end_then_backing_off() -> None:
    plan = PredictedSchedule(history(590.0, 600.0, 610.0), PollSchedule(5, 60, 1.5), latency=15, sparse_cap=600)
    assert plan.step == 5  # a quarter of the 20 s spread
    assert plan.next_delay(0) == pytest.approx(587.5)  # first look just before the shortest run
    assert plan.next_delay(590) == 5 and plan.next_delay(614) == 5  # dense through the longest
    assert plan.next_delay(700, 1) == pytest.approx(11.25) and plan.next_delay(5000, 9) == 60  # capped backoff
    wide = PredictedSchedule(history(300.0, 600.0, 900.0), latency=15)
    assert wide.step == 15  # never coarser than the latency budget
    long_plan = PredictedSchedule(history(3500.0, 3600.0, 3700.0))
    assert long_plan.next_delay(0) == 600  # never silent for more than sparse_cap
    short = PredictedSchedule(history(2.0, 2.0, 2.0))
    assert short.step == 1.0 and short.next_delay(0) == pytest.approx(1.5)


def test_the_cache_keeps_hits_and_misses_for_its_ttl() -> None:
    now = [0.0]
    cache = HistoryCache(ttl=10, clock=lambda: now[0], miss_ttl=5)
    key = ("http://druid", "ds", "index_parallel")
    assert cache.get(key) == (False, None)
    cache.put(key, None)
    assert cache.get(key) == (True, None)  # a miss is remembered too, for a shorter while
    now[0] = 6
    assert cache.get(key) == (False, None)
    found = history(1.0, 2.0, 3.0)
    cache.put(key, found)
    now[0] = 15
    assert cache.get(key) == (True, found)
    now[0] = 17
    assert cache.get(key) == (False, None)


def test_a_wait_with_history_polls_far_less_than_the_fixed_schedule(fake_druid_factory, make_client) -> None:
    CACHE.clear()
    fake: FakeDruid = fake_druid_factory(task_duration=1.5, pending_delay=0.0)
    client = make_client(fake.url)
    for n in range(3):  # three earlier ingestions of this datasource: the history
        fake.plan_next_task(TaskPlan(duration=1.5))
        task_id = client.ensure_submitted(day_spec(), idempotency_key=f"history-{n}").task_id
        client.wait_for_task(task_id, timeout=20)
    fixed = PollSchedule(initial=0.05, max_delay=0.05, multiplier=1.0)
    CACHE.clear()  # those waits cached "no history yet" (a miss is remembered for the TTL)

    def polls_for(key: str, predict: bool) -> int:
        fake.plan_next_task(TaskPlan(duration=1.5))
        task_id = client.ensure_submitted(day_spec(), idempotency_key=key).task_id
        fake.clear_requests()
        outcome = client.client.watch_task(task_id, 20, fixed, predict=predict)
        if client.loop is not None:
            outcome = client.loop.run_until_complete(outcome)
        assert outcome.kind == "success"
        return len([r for r in fake.requests if r.path.endswith("/status")])

    predicted = polls_for("predicted", True)
    CACHE.clear()
    blind = polls_for("blind", False)
    assert predicted <= 4 < blind, (predicted, blind)  # a look at the start, then around the expected end


def test_the_waits_learn_into_the_memory_their_client_owns(fake_druid_factory, make_client) -> None:
    """The waits write to the WaitMemory the client passes in, never to the process-wide caches behind it."""
    CACHE.clear()
    fake: FakeDruid = fake_druid_factory(task_duration=0.2, pending_delay=0.0)
    client = make_client(fake.url)
    own = client.client.wait_memory = WaitMemory(client.client.config.base_url("overlord"))
    task_id = client.ensure_submitted(day_spec(), idempotency_key="own-memory").task_id
    client.wait_for_task(task_id, timeout=20)
    # "no history yet" for this datasource was remembered here, then dropped by the task's own SUCCESS
    assert len(own.durations.successes) == 1 and not own.durations._entries
    assert not CACHE._entries and not CACHE.successes
    assert WaitMemory.shared("x").durations is CACHE


def test_never_a_vanishing_delay_just_before_the_first_look() -> None:
    """A look a hair before the planned first one must not plan another look a hair later (on an epoch clock a
    1e-7 s sleep does not even move time forward)."""
    plan = PredictedSchedule(history(588.9, 596.8, 600.2))
    first = plan.history.low - plan.step / 2
    assert plan.next_delay(first - 1e-7) >= 1.0
    assert all(plan.next_delay(t / 10) >= min(1.0, first - t / 10) for t in range(0, 7000))


def test_a_short_run_in_a_widely_spread_history_is_seen_within_a_quarter_of_its_length() -> None:
    """Runs of 7 s and of 30-46 s (a smaller and a bigger input): the spread makes ``step`` 9 s, but a 7.5 s run
    is seen within a quarter of its length (at least a second), and the whole window costs a bounded few looks."""
    plan = PredictedSchedule(history(*[7.1] * 25, *[30.0 + 16 * n / 24 for n in range(25)]))
    assert plan.step > 9
    looks, t = [], 0.0
    while t < plan.window_end:
        t += plan.next_delay(t)
        looks.append(t)
    seen = next(look for look in looks if look >= 7.5)
    assert seen - 7.5 <= max(1.0, 0.25 * 7.5)
    assert len(looks) <= 20  # 9 s apart it would be 6; a look a second would be 55
    tight = PredictedSchedule(history(590.0, 600.0, 610.0))
    assert tight.next_delay(595) == tight.step  # long runs: a quarter of the running time is far past the step


def test_runs_of_two_sizes_are_looked_for_as_densely_as_each_size_alone() -> None:
    """22 runs of ~7.5 s and 28 of 44-60 s (a small and a big day on one datasource): ``step``, a quarter of the
    whole spread, is 13 s, but near the long runs the looks come as densely as those runs' own spread asks (a
    quarter of 16 s), so a 50 s run is seen within 4 s, not 13; a history of one size is looked for as before."""
    short = [7.1 + 0.05 * i for i in range(22)]
    long = [44.0 + 16 * n / 27 for n in range(28)]
    assert [(g[0], g[-1]) for g in run_groups(sorted(short + long))] == [(7.1, short[-1]), (44.0, 60.0)]
    assert run_groups([7.0, 7.1, 30.0, 31.0]) == [] and run_groups([7.0, 7.1, 7.2, 30.0]) == [[7.0, 7.1, 7.2]]
    plan = PredictedSchedule(history(*short, *long))
    assert plan.step > 12
    looks, t = [], 0.0
    while t < plan.window_end:
        t += plan.next_delay(t)
        looks.append(t)
    for end in (45.0, 50.0, 55.0, 60.0):
        assert next(look for look in looks if look >= end) - end <= 16 / 4
    assert next(look for look in looks if look >= 7.5) - 7.5 <= 1.0
    assert len(looks) <= 25  # 13 s apart near the long runs it was 18; a look a second would be 73
    one_size = PredictedSchedule(history(*long))
    assert all(one_size.dense_gap(t) == one_size.step for t in (45.0, 50.0, 59.0))
    few = PredictedSchedule(history(*short, 88.0, 90.0, 92.0, 95.0, 96.0, 98.0))  # six runs span less than theirs
    assert few.dense_gap(101.0) == 2.5  # past the longest by under two sample gaps: still the group's gap, not 15 s
