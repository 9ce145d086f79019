"""What a process keeps between ingestions (``WaitMemory`` on an injectable clock), over real sockets, on a
simulated clock: the cluster's slots for ``CAPACITY_TTL``, the history for its cadence; and ``check_every``."""

from __future__ import annotations

from druid_ingest import ClusterConfig, DruidClient, PollSchedule, RetryPolicy
from druid_ingest.api import endpoints as ep
from druid_ingest.ops._history import (
    CAPACITY_TTL,
    HISTORY_TTL,
    DurationHistory,
    HistoryCache,
    WaitMemory,
    history_ttl,
    task_history,
)
from druid_ingest.ops._schedule import PredictedSchedule
from druid_ingest.testing import FakeDruid, SimClock, TaskPlan
from druid_ingest.wire import call

from tests.druid_ingest.sample_specs import day_spec

#: what every history read adds: every completed task, not only those Druid lists by default (the last day's)
EVER = f"createdTimeInterval={ep.ANY_CREATED_TIME}"
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.1, max_delay=0.5, deadline=20, jitter=False)


def _client(fake: FakeDruid, clock: SimClock) -> DruidClient:
    client = DruidClient(ClusterConfig(url=fake.url), RETRY, clock=clock.now, sleep=clock.sleep)
    client.wait_memory = WaitMemory.on_clock(fake.url, clock.now)
    return client


def _ingest(client: DruidClient, fake: FakeDruid, key: str, schedule: PollSchedule | None = None) -> int:
    """One ingestion; the requests it sent."""
    fake.clear_requests()
    client.ingest(day_spec(), idempotency_key=key, task_timeout=7200, handoff_timeout=600,
                  schedule=schedule or PollSchedule(5, 60, 1.5))
    return len(fake.requests)


def _workers(fake: FakeDruid) -> int:
    return sum(r.path.endswith("/workers") for r in fake.requests)


def test_two_ingestions_within_the_ttl_ask_for_the_workers_once(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=30, pending_delay=0.5, handoff_delay=2)
    with _client(fake, clock) as client:
        _ingest(client, fake, "a")
        assert _workers(fake) == 1  # the core's ingest runs the operator's capacity check
        _ingest(client, fake, "b")
        assert _workers(fake) == 0  # within CAPACITY_TTL: kept
        clock.sleep(CAPACITY_TTL + 1)
        _ingest(client, fake, "c")
        assert _workers(fake) == 1  # past it: asked again


def test_check_capacity_reads_once_per_ttl_on_both_clients(fake_druid_factory, make_client) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now)
    client = make_client(fake.url)
    client.client.wait_memory = WaitMemory.on_clock(fake.url, clock.now)
    fake.clear_requests()
    assert client.check_capacity(2) is None and client.check_capacity(2) is None
    assert _workers(fake) == 1
    clock.sleep(CAPACITY_TTL + 1)
    client.check_capacity(2)
    assert _workers(fake) == 2


def test_the_history_is_kept_for_a_tenth_of_its_samples_at_its_cadence() -> None:
    day = 86400.0
    daily = DurationHistory.of([600.0 + n for n in range(30)], [n * day for n in range(30)])
    assert daily is not None and daily.every == day
    assert history_ttl(daily) == 3 * day  # 30 samples: 3 runs may be replaced before it is read again
    assert history_ttl(DurationHistory.of([1.0, 2.0, 3.0])) == HISTORY_TTL  # cadence unknown
    assert history_ttl(None) == HISTORY_TTL


def test_a_daily_run_reads_the_history_only_when_its_ttl_ran_out(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5, handoff_delay=2)
    reads = []
    with _client(fake, clock) as client:
        for n in range(13):  # ten to know the cadence (10 // 10 = 1 run), then daily runs
            fake.plan_next_task(TaskPlan(duration=60))
            _ingest(client, fake, f"day-{n}")
            reads.append(sum(r.path.endswith("/tasks") for r in fake.requests))
            clock.sleep(86400 - 70)
    # with >= 10 samples the history is kept one day: read every other daily run, not every run
    assert sum(reads[-3:]) < 3, reads


def test_check_every_spaces_the_safety_looks(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=3600, pending_delay=0.5, handoff_delay=2)
    looks = {}
    with _client(fake, clock) as client:
        for n in range(4):  # the history (3 runs)
            fake.plan_next_task(TaskPlan(duration=3600))
            _ingest(client, fake, f"warm-{n}")
        for every in (600.0, 1800.0, None):
            fake.plan_next_task(TaskPlan(duration=3600))
            _ingest(client, fake, f"check-{every}", PollSchedule(5, 60, 1.5, detect_within=30, check_every=every))
            looks[every] = sum(r.path.endswith("/status") for r in fake.requests)
    assert looks[600.0] > looks[1800.0] > looks[None], looks


def test_without_check_every_the_wait_is_silent_until_the_window() -> None:
    history = DurationHistory(10, 3500.0, 3600.0, 3650.0, 3700.0)
    assert PredictedSchedule(history, PollSchedule(5, 60, 1.5, detect_within=30)).next_delay(0) == 600
    spaced = PredictedSchedule(history, PollSchedule(5, 60, 1.5, detect_within=30, check_every=1800))
    assert spaced.next_delay(0) == 1800
    trusting = PredictedSchedule(history, PollSchedule(5, 60, 1.5, detect_within=30, check_every=None))
    assert trusting.next_delay(0) == trusting.first_look


def _seed_runs(fake: FakeDruid, clock: SimClock, runs: int, k: int, datasource: str) -> None:
    """``runs`` finished ingestions of ``datasource``, each with ``k`` concurrent subtasks (k = 1: sequential)."""
    for n in range(runs):
        spec = day_spec(f"2026-10-{n + 1:02d}", datasource=datasource, k=k, dynamic=True)
        fake.seed_tasks([{**spec, "id": f"{datasource}_{n}"}])
        clock.sleep(120)  # past its run: one completes before the next is created


def _history_reads(fake: FakeDruid) -> list[str]:
    return [r.query_string for r in fake.requests if r.path.endswith("/tasks")]


def test_the_history_of_a_parallel_ingestion_counts_runs_its_subtasks_crowd_out(fake_druid_factory) -> None:
    """Druid bounds ``max`` before filtering by ``type``: 20 runs of 3 subtasks each are 80 completed tasks, and
    ``type=index_parallel&max=50`` sees the newest 12 runs. The history reads more tasks when that happens, knows
    all 20, and remembers how many to read: the next history (past its TTL) is one request."""
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5)
    _seed_runs(fake, clock, 20, k=3, datasource="crowded")
    cache = HistoryCache(clock=clock.now)
    with _client(fake, clock) as client:
        direct = client._run(call(ep.tasks("complete", "crowded", 50, "index_parallel"), ep.parse_tasks))
        assert len(direct) == 12  # the crowding itself, as Druid answers it
        fake.clear_requests()
        history = client._run(task_history(fake.url, "crowded", "index_parallel", cache))
        assert history is not None and history.samples == 20
        assert _history_reads(fake) == [f"state=complete&datasource=crowded&max=50&{EVER}",
                                        f"state=complete&datasource=crowded&max=313&{EVER}"]  # 1.5x50 runs x 50/12
        clock.sleep(7200)  # past the history's TTL
        fake.clear_requests()
        again = client._run(task_history(fake.url, "crowded", "index_parallel", cache))
        assert again is not None and again.samples == 20
        assert _history_reads(fake) == [f"state=complete&datasource=crowded&max=313&{EVER}"]


def test_the_history_of_a_sequential_ingestion_is_one_read(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5)
    _seed_runs(fake, clock, 5, k=1, datasource="plain")
    with _client(fake, clock) as client:
        fake.clear_requests()
        history = client._run(task_history(fake.url, "plain", "index_parallel", HistoryCache(clock=clock.now)))
        assert history is not None and history.samples == 5
        assert len(_history_reads(fake)) == 1  # fewer than 50 completed tasks: the first page is all there is


def test_a_run_outside_the_kept_history_makes_the_next_wait_read_it_again(fake_druid_factory) -> None:
    """Kept histories are reused for their TTL; a run longer than every kept one shows the runs changed, so the
    next wait reads Druid's history again instead of planning from the old runs."""
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5, handoff_delay=2)
    _seed_runs(fake, clock, 5, k=1, datasource="events_web")
    reads = []
    with _client(fake, clock) as client:
        for n, duration in enumerate((60, 60, 200, 60)):
            fake.plan_next_task(TaskPlan(duration=duration))
            _ingest(client, fake, f"run-{n}")
            reads.append(sum(r.path.endswith("/tasks") for r in fake.requests))
            clock.sleep(10)  # well within the history's TTL (900 s at least)
    assert reads == [1, 0, 0, 1]  # read, kept, kept (the 200 s run was planned from it), read again after it


def test_a_daily_datasource_s_history_reaches_past_the_last_day(fake_druid_factory) -> None:
    """Druid lists only the last day's completed tasks unless asked for an interval (``recentlyFinishedThreshold``):
    a daily ingestion's history read without one finds one run, too few to predict from, every day."""
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5)
    for n in range(10):  # ten daily runs, the last an hour ago
        spec = day_spec(f"2026-10-{n + 1:02d}", datasource="daily", k=1, dynamic=True)
        fake.seed_tasks([{**spec, "id": f"daily_{n}"}])
        clock.sleep(86400 if n < 9 else 3600)
    with _client(fake, clock) as client:
        history = client._run(task_history(fake.url, "daily", "index_parallel", HistoryCache(clock=clock.now)))
    assert history is not None and history.samples == 10
    assert history.every is not None and abs(history.every - 86400) < 1  # the cadence: daily


def test_completed_tasks_of_a_type_are_its_newest_runs_past_the_subtasks(fake_druid_factory) -> None:
    """``completed_tasks(ds, limit, type)`` (what ``druid-ingest timeouts`` learns from): Druid's own ``type=`` and
    ``max=`` list only the runs among the newest ``limit`` tasks of every type; the client lists ``limit`` runs."""
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5)
    _seed_runs(fake, clock, 20, k=3, datasource="crowded")
    with _client(fake, clock) as client:
        druid_s = client._run(call(ep.tasks("complete", "crowded", 10, "index_parallel"), ep.parse_tasks))
        assert len(druid_s) < 10  # the crowding, as Druid answers it
        runs = client.completed_tasks("crowded", 10, "index_parallel")
    assert len(runs) == 10 and {t.task_type for t in runs} == {"index_parallel"}
    assert [t.task_id for t in runs] == [f"crowded_{n}" for n in range(19, 9, -1)]  # the newest ten, newest first
