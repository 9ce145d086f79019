"""The handoff wait's looks after SUCCESS (issue 31): dense through the window the handoff usually takes, then the
existing backoff; pure, and on the fake Druid over real sockets with a simulated clock (no timed assertion: the
simulated times are exact)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import requests
from druid_ingest import ClusterConfig, DruidClient, PollSchedule, RetryPolicy
from druid_ingest.api import HandoffTarget
from druid_ingest.ops._handoff_latencies import HANDOFF_KEEP, HandoffLatencies
from druid_ingest.ops._history import WaitMemory
from druid_ingest.ops.gate.looks import (
    EXPLORE_EVERY,
    FIRST_LOOK,
    HIGH_MARGIN,
    SETTLED_DELAYS,
    WINDOW_END,
    HandoffLooks,
)
from druid_ingest.testing import FakeDruid, SimClock

from tests.druid_ingest.sample_specs import day_spec

RETRY = RetryPolicy(max_attempts=3, initial_delay=0.1, max_delay=0.5, deadline=20, jitter=False)
SCHEDULE = PollSchedule(5, 60, 1.5)  # the operator's defaults


def test_without_delays_the_window_is_fixed_and_then_the_schedule_backs_off() -> None:
    looks = HandoffLooks.plan([], SCHEDULE)
    assert (looks.first, looks.until, looks.step) == (FIRST_LOOK, WINDOW_END, 1.0)
    assert [looks.next_delay(t, 0) for t in (2.0, 6.0, 11.0)] == [1.0, 1.0, 1.0]
    assert [looks.next_delay(12.0, n) for n in (1, 2, 3)] == [5.0, 7.5, 11.25]  # the existing schedule, from its start


def test_learned_delays_place_the_window_at_the_5th_and_past_the_95th_percentile() -> None:
    delays = [4.0 + 0.5 * i for i in range(20)]  # 4.0 .. 13.5
    looks = HandoffLooks.plan(delays, SCHEDULE)
    assert looks.first == 4.0  # p5: nothing quicker was seen, a look before it would find "not yet"
    assert looks.until == pytest.approx(13.0 * HIGH_MARGIN)  # p95 (nearest rank: the 19th) x the margin
    exploring = HandoffLooks.plan(delays, SCHEDULE, explore=True)
    assert exploring == HandoffLooks(3.0, looks.until, SCHEDULE, 1.0)  # a step before: a quicker one is learned
    assert HandoffLooks.plan([3.0] * SETTLED_DELAYS, SCHEDULE).until == 5.0  # at least two steps past it
    assert HandoffLooks.plan([5.0], SCHEDULE) == HandoffLooks.plan([], SCHEDULE)  # one delay is no history


def test_learned_looks_keep_the_schedules_pace_its_backoff_and_a_first_look_not_before_the_end() -> None:
    fast = PollSchedule(0.5, 10.0, 2.0)
    looks = HandoffLooks.plan([1.0] * SETTLED_DELAYS, fast)
    assert (looks.first, looks.until, looks.step) == (1.0, 2.0, 0.5)  # p5; p95 + two steps (> 1.25 x 1)
    assert HandoffLooks.plan([1.0, 1.0], fast, explore=True).first == 0.5  # p5 - the schedule's own step
    assert [looks.next_delay(2.5, n) for n in (1, 2)] == [fast.delay(1), fast.delay(2)]  # past the window
    assert HandoffLooks.plan([0.2, 0.3], SCHEDULE, explore=True).first == 0.0  # not before the end
    assert HandoffLooks.plan([0.2, 0.3], SCHEDULE).first == 0.2


def _seen_at(looks: HandoffLooks, served: float) -> float:
    """When ``looks`` first finds data served ``served`` seconds after the task's end."""
    at, past = looks.first, 0
    while at < served:
        past += 0 if looks.dense(at) else 1
        at += looks.next_delay(at, past)
    return at


def test_a_few_quick_handoffs_do_not_narrow_the_window_below_the_usual_one() -> None:
    """Run 16 on the dev Druid 33: three quick handoffs (1.2-2.0 s) planned a window to 4 s, and a 6.6 s one was
    seen on the backoff at 9.2 s. Until ``SETTLED_DELAYS`` are known the window still reaches ``WINDOW_END``."""
    few = HandoffLooks.plan([1.2, 1.6, 2.0], SCHEDULE)
    assert few.first == 1.2 and few.until == WINDOW_END
    assert _seen_at(few, 6.6) - 6.6 <= few.step  # was 2.6 s late
    assert _seen_at(few, 1.5) == 2.2  # a quick one costs what it did
    settled = HandoffLooks.plan([1.2, 1.6, 2.0, 1.4, 1.8], SCHEDULE)
    assert settled.until == 4.0  # then the learned window: a slower one is late, looked for on the backoff
    assert _seen_at(settled, 6.6) - 6.6 > few.step


def test_a_look_a_quarter_step_before_the_windows_end_is_past_it() -> None:
    """The window's last look lands ~a step before ``until`` (timers run late by a little): one a quarter step
    short of it would only find what the backoff's first look finds, so it counts as past."""
    looks = HandoffLooks(2.0, 10.0, SCHEDULE, 1.0)
    assert looks.dense(9.74) and not looks.dense(9.75) and not looks.dense(9.78)
    assert looks.next_delay(9.74, 0) == 1.0 and looks.next_delay(9.78, 1) == SCHEDULE.delay(1)


def test_a_schedule_faster_than_a_second_keeps_its_pace() -> None:
    looks = HandoffLooks.plan([], PollSchedule(0.05, 0.2, 1.5))
    assert (looks.first, looks.step) == (0.05, 0.05)


def test_one_wait_in_explore_every_looks_a_step_early() -> None:
    assert [HandoffLooks.explores(n) for n in range(2 * EXPLORE_EVERY)] == (
        [True] + [False] * (EXPLORE_EVERY - 1)) * 2


def test_the_latencies_keep_the_last_ones_count_them_all_and_refuse_to_keep_none() -> None:
    seen = HandoffLatencies()
    for i in range(HANDOFF_KEEP + 5):
        seen.record(("c", "ds"), float(i))
    assert seen.recent(("c", "ds")) == [float(i) for i in range(5, HANDOFF_KEEP + 5)]
    assert seen.recorded(("c", "ds")) == HANDOFF_KEEP + 5  # the turn counts every delay, not only those kept
    assert seen.recent(("c", "other")) == [] and seen.recorded(("c", "other")) == 0
    seen.clear()
    assert seen.recorded(("c", "ds")) == 0
    with pytest.raises(ValueError, match="keep=0"):
        HandoffLatencies(keep=0)  # ``del seen[:-0]`` would have kept every delay


class Recorder(requests.Session):
    """Notes when (simulated) each status answer came: the task wait's sighting of the end."""

    def __init__(self, clock: SimClock) -> None:
        super().__init__()
        self.clock = clock
        self.status_at: list[float] = []

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        if url.endswith("/status") or url.endswith("/taskStatus"):
            self.status_at.append(self.clock.now())
        return super().request(method, url, *args, **kwargs)


def _client(fake: FakeDruid, clock: SimClock) -> tuple[DruidClient, Recorder]:
    recorder = Recorder(clock)
    client = DruidClient(ClusterConfig(url=fake.url), RETRY, recorder, clock=clock.now, sleep=clock.sleep)
    client.wait_memory = WaitMemory.on_clock(fake.url, clock.now)
    return client, recorder


def _ingest(client: tuple[DruidClient, Recorder], fake: FakeDruid, clock: SimClock, key: str
            ) -> tuple[float, int, int]:
    """One ingestion: (the handoff wait's share: from the data served, or the task wait seeing the end when that
    came later, to the wait seeing it loaded, in simulated seconds; its gate looks; all its requests)."""
    druid, recorder = client
    recorder.status_at.clear()
    fake.clear_requests()
    result = druid.ingest(day_spec(), idempotency_key=key, task_timeout=7200, handoff_timeout=600,
                           schedule=SCHEDULE)
    seen = clock.now()
    assert result.handoff is not None and result.handoff.state == "loaded"
    with fake.state.lock:
        served = [s.served_at for s in fake.state.segments if s.task_id == result.submit.task_id]
    assert served and None not in served
    looks = sum(r.method == "GET" and "/intervals/" in r.path for r in fake.requests)  # ids-only served listings
    return seen - max(recorder.status_at[-1], *(s for s in served if s is not None)), looks, len(fake.requests)


@pytest.mark.parametrize("handoff", [2.5, 6.0, 9.5])
def test_the_wait_sees_the_data_within_a_step_of_being_served(fake_druid_factory, handoff: float) -> None:
    clock = SimClock()
    # a task the fixed schedule sees end at once (looks 5, 12.5 ... 65.9 s after the submit; it ends at 65.5):
    # the handoff starts after the wait saw the end, so its window is what is measured, not the task wait's lag
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=65, pending_delay=0.5, handoff_delay=handoff,
                                         coordinator_period=1.0)
    client = _client(fake, clock)
    with client[0]:
        lags = [_ingest(client, fake, clock, f"k{n}") for n in range(5)]
    # no history (the first two), then learned: the served listing a second apart sees it within that second
    assert all(lag <= 1.0 for lag, _, _ in lags)
    # without history the looks start FIRST_LOOK after the end (as the wait saw it): about one a second after that
    assert lags[0][1] <= handoff - FIRST_LOOK + 3
    # with history the first look comes at the quickest seen (a step before it every EXPLORE_EVERY-th): one to
    # three looks
    assert all(looks <= 3 for _, looks, _ in lags[2:])


def test_a_handoff_later_than_the_window_is_looked_for_on_the_existing_backoff(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5, handoff_delay=40.0,
                                         coordinator_period=1.0)
    client = _client(fake, clock)
    with client[0]:
        lag, looks, _ = _ingest(client, fake, clock, "late")
    # the window (about 10 looks up to 12 s), then 5 + 7.5 + 11.25 s (and the never question past the window)
    assert looks <= 10 + 4
    assert lag <= 11.25 + 1.0  # within the backoff's gap: a late handoff is outside the 2 s promise
    probes = [r for r in fake.requests if r.path.endswith("/handoffComplete")]
    assert probes, "past the window a missing segment is asked about (will it ever load?)"


# ---- the same looks for a handoff wait started alone (the sensors, the triggers, the Dagster steps) --------------

class GateRecorder(Recorder):
    """Also notes when (simulated) each gate look came: one ids-only served listing per look."""

    def __init__(self, clock: SimClock) -> None:
        super().__init__(clock)
        self.looks_at: list[float] = []

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        if method == "GET" and "/intervals/" in url:
            self.looks_at.append(self.clock.now())
        return super().request(method, url, *args, **kwargs)


def _ended(fake_druid_factory, clock: SimClock, handoff: float) -> tuple[DruidClient, GateRecorder, Any]:
    """A client on a fake with ``handoff`` seconds from publish to served, and the target of a task it waited for:
    the task ended, nothing looked at the gate yet."""
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=30, pending_delay=0.0, handoff_delay=handoff,
                                         coordinator_period=0.5)
    recorder = GateRecorder(clock)
    client = DruidClient(ClusterConfig(url=fake.url), RETRY, recorder, clock=clock.now, sleep=clock.sleep)
    client.wait_memory = WaitMemory.on_clock(fake.url, clock.now)
    task_id = client.ensure_submitted(day_spec()).task_id
    client.wait_for_task(task_id, timeout=600, schedule=PollSchedule(0.5, 0.5))
    target = client.handoff_target(task_id, "", [])
    recorder.looks_at.clear()
    return client, recorder, target


def test_a_handoff_wait_alone_looks_from_the_tasks_end_on_the_learned_window_and_learns(fake_druid_factory) -> None:
    """What the Airflow handoff trigger and the Dagster wait op and check run (``client.watch_handoff``): the
    target carries the task's end (Druid's createdTime + duration), so the looks are the ingestion wait's."""
    clock = SimClock()
    client, recorder, target = _ended(fake_druid_factory, clock, handoff=6.0)
    assert target.ended_at is not None and 0 <= clock.now() - target.ended_at <= 1.0
    key = (client.wait_memory.cluster, target.datasource)
    for delay in (6.0, 6.5, 7.0):
        client.wait_memory.handoffs.record(key, delay)
    looks = HandoffLooks.plan(client.wait_memory.handoffs.recent(key), SCHEDULE)
    outcome = client.watch_handoff(target, 600, SCHEDULE)
    assert outcome.result is not None and outcome.result.state == "loaded"
    times = [t - target.ended_at for t in recorder.looks_at]
    assert times[0] == pytest.approx(looks.first, abs=1e-3)  # not at once, as the fixed schedule looked
    assert [round(b - a, 3) for a, b in itertools.pairwise(times)] == [looks.step] * (len(times) - 1)
    assert len(client.wait_memory.handoffs.recent(key)) == 4  # its own delay kept for the next wait


def test_a_handoff_wait_started_long_after_the_end_looks_at_once_and_learns_nothing_from_it(
        fake_druid_factory) -> None:
    clock = SimClock()
    client, recorder, target = _ended(fake_druid_factory, clock, handoff=3.0)
    clock.sleep(120)  # a sensor started two minutes after the task: the window is long past, the data served
    started = clock.now()
    outcome = client.watch_handoff(target, 600, SCHEDULE)
    assert outcome.result is not None and outcome.result.state == "loaded"
    assert recorder.looks_at == [started]
    assert client.wait_memory.handoffs.recent((client.wait_memory.cluster, target.datasource)) == []


def test_a_target_without_its_end_looks_from_now_and_learns_nothing(fake_druid_factory) -> None:
    """A target serialized before it carried its end (a trigger deferred by an older version): the window is
    placed from the wait's start, and the delay it sees is no handoff delay to plan from."""
    clock = SimClock()
    client, recorder, target = _ended(fake_druid_factory, clock, handoff=6.0)
    target = HandoffTarget.from_dict({k: v for k, v in target.to_dict().items() if k != "ended_at"})
    started = clock.now()
    outcome = client.watch_handoff(target, 600, SCHEDULE)
    assert outcome.result is not None and outcome.result.state == "loaded"
    assert recorder.looks_at[0] == pytest.approx(started + FIRST_LOOK)
    assert client.wait_memory.handoffs.recent((client.wait_memory.cluster, target.datasource)) == []
def test_a_steady_handoff_costs_one_look_and_a_quicker_one_is_learned(fake_druid_factory) -> None:
    """The first look comes at the quickest delay seen: on a cluster whose handoffs take the same time it finds the
    data at once (one served listing), but every EXPLORE_EVERY-th wait looks a step earlier (two), so when the
    handoffs get quicker the window follows them down a step per EXPLORE_EVERY waits."""
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=65, pending_delay=0.5, handoff_delay=6.0,
                                         coordinator_period=1.0)
    client = _client(fake, clock)
    with client[0]:
        steady = [_ingest(client, fake, clock, f"s{n}") for n in range(2 + 3 * EXPLORE_EVERY)][2:]
        # delays recorded 2 .. 13 before these waits: the 4th, 8th and 12th look a step early
        assert sorted(looks for _, looks, _ in steady) == [1] * (3 * EXPLORE_EVERY - 3) + [2] * 3
        assert all(lag <= 1.0 for lag, _, _ in steady)
        fake.state.handoff_delay = 3.0  # the cluster's handoffs got 3 s quicker
        quicker = [_ingest(client, fake, clock, f"q{n}") for n in range(6 * EXPLORE_EVERY)]
    lags = [lag for lag, _, _ in quicker]
    assert lags[0] > 2.0  # at first seen at the old quickest (6 s), about 3 s late
    assert all(lag <= 1.0 for lag in lags[-EXPLORE_EVERY:])  # learned: within a step again
    assert all(looks <= 2 for _, looks, _ in quicker[-EXPLORE_EVERY:])


def test_on_a_cluster_whose_handoffs_vary_a_hit_at_the_first_look_moves_the_next_one_earlier(
        fake_druid_factory) -> None:
    """The dev Druid 33 handed off in 1.1-6.8 s: two slow first handoffs put the first look at ~5 s, and the
    quick ones after were found there, seen up to 3.4 s late, while the window came down a step per
    EXPLORE_EVERY waits. When the kept delays vary by more than a step, a wait whose first look found the data
    makes the next one look a step earlier, so the window follows quick handoffs down a step per wait."""
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=65, pending_delay=0.5, handoff_delay=6.0,
                                         coordinator_period=1.0)
    client = _client(fake, clock)
    with client[0]:
        for n, handoff in enumerate((6.0, 6.0, 7.5)):
            fake.state.handoff_delay = handoff
            _ingest(client, fake, clock, f"slow{n}")
        fake.state.handoff_delay = 2.0  # the quick handoffs this cluster also makes
        quick = [_ingest(client, fake, clock, f"q{n}") for n in range(8)]
    lags = [lag for lag, _, _ in quick]
    assert lags[0] > 2.5  # found at the first look, ~6 s after the end
    assert all(lag <= 1.0 for lag in lags[-2:]), lags  # a step per wait: down to ~2 s within 6 waits, not 16
    assert sum(looks for _, looks, _ in quick[-2:]) <= 4
