"""A start-up herd's histories from one read (``ops.many_histories``): one ``GET /tasks?state=complete`` over every
datasource settles each key exactly as its own read would, a page Druid filled settles only the keys it holds
``HISTORY_SIZE`` runs of, and the rest are left to their own reads. Over real sockets against the fake, on a
simulated clock."""

from __future__ import annotations

from druid_ingest import ClusterConfig, DruidClient, RetryPolicy
from druid_ingest.api import endpoints as ep
from druid_ingest.ops._history import HISTORY_SIZE, HISTORY_TTL, HistoryCache, many_histories, task_history
from druid_ingest.testing import FakeDruid, SimClock

from tests.druid_ingest.history_race import success_after_send
from tests.druid_ingest.sample_specs import day_spec

RETRY = RetryPolicy(max_attempts=3, initial_delay=0.1, max_delay=0.5, deadline=20, jitter=False)
KIND = "index_parallel"


def _seed(fake: FakeDruid, clock: SimClock, datasource: str, runs: int, first: int = 0, every: float = 120) -> None:
    """``runs`` finished sequential ingestions of ``datasource``, ``every`` seconds apart (each completes first)."""
    for n in range(first, first + runs):
        spec = day_spec(f"2026-{1 + n // 27 % 12:02d}-{1 + n % 27:02d}", datasource=datasource, k=1, dynamic=True)
        fake.seed_tasks([{**spec, "id": f"{datasource}_{n}"}])
        clock.sleep(every)


def _reads(fake: FakeDruid) -> list[str]:
    return [r.query_string for r in fake.requests if r.path.endswith("/tasks")]


def test_one_read_gives_each_datasource_the_history_its_own_read_gives(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5)
    for ds, runs in (("a", 5), ("b", 3), ("c", 2), ("d", 0)):  # c: too few runs to predict; d: none at all
        _seed(fake, clock, ds, runs, every=90 + 10 * runs)
    keys = [("a", KIND), ("b", KIND), ("c", KIND), ("d", KIND)]
    shared, alone = HistoryCache(clock=clock.now), HistoryCache(clock=clock.now)
    with DruidClient(ClusterConfig(url=fake.url), RETRY, clock=clock.now, sleep=clock.sleep) as client:
        fake.clear_requests()
        left, read = client._run(many_histories(fake.url, keys, shared))
        assert (left, read) == ([], True)
        # one read, no datasource, every completed task (not only the last day's: ``ep.ANY_CREATED_TIME``)
        assert _reads(fake) == [f"state=complete&max={4 * HISTORY_SIZE}&createdTimeInterval={ep.ANY_CREATED_TIME}"]
        for ds, kind in keys:
            found, history = shared.get((fake.url, ds, kind))
            assert found, ds  # settled: a history, or a miss kept as one (c, d)
            assert history == client._run(task_history(fake.url, ds, kind, alone)), ds
        assert shared.get((fake.url, "a", KIND))[1] is not None and shared.get((fake.url, "c", KIND))[1] is None
        fake.clear_requests()
        assert client._run(many_histories(fake.url, keys, shared)) == ([], False)  # all kept: nothing to read
        assert client._run(many_histories(fake.url, [("a", "index_hadoop")], shared)) == ([("a", "index_hadoop")],
                                                                                          False)  # one datasource
        assert _reads(fake) == []


def test_a_page_druid_filled_settles_only_the_datasources_it_holds_enough_runs_of(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(clock=clock.now, task_duration=60, pending_delay=0.5)
    _seed(fake, clock, "old", 4)  # older than the page's end: its runs lie past the shared page
    _seed(fake, clock, "busy", 2 * HISTORY_SIZE)  # the newest 100 completed tasks, all busy's
    cache = HistoryCache(clock=clock.now)
    with DruidClient(ClusterConfig(url=fake.url), RETRY, clock=clock.now, sleep=clock.sleep) as client:
        left, read = client._run(many_histories(fake.url, [("old", KIND), ("busy", KIND)], cache))
        assert read and left == [("old", KIND)]  # not a miss: the page cannot tell what old has
        assert not cache.get((fake.url, "old", KIND))[0]
        busy = cache.get((fake.url, "busy", KIND))[1]
        assert busy is not None and busy.samples == HISTORY_SIZE
        assert busy == client._run(task_history(fake.url, "busy", KIND, HistoryCache(clock=clock.now)))
        old = client._run(task_history(fake.url, "old", KIND, cache))  # its own read finds its four runs
        assert old is not None and old.samples == 4
        # the cluster has more completed tasks than a page shows: the next batches read per datasource, no page
        # that would come back full again, until HISTORY_TTL has passed
        fake.clear_requests()
        others = [("new_a", KIND), ("new_b", KIND)]
        assert client._run(many_histories(fake.url, others, cache)) == (others, False)
        assert _reads(fake) == []
        clock.sleep(HISTORY_TTL + 1)
        assert client._run(many_histories(fake.url, others, cache))[1]
        assert len(_reads(fake)) == 1


def test_a_miss_read_while_a_run_succeeded_is_left_to_its_own_read(fake_druid_factory) -> None:
    """As ``task_history``: the success came while the shared read was under way, so its listing may predate the
    run; the miss it found for that key is not kept, and the key is left to its own read."""
    fake: FakeDruid = fake_druid_factory()
    cache = HistoryCache(clock=SimClock().now)
    fresh = (fake.url, "fresh", KIND)

    with DruidClient(ClusterConfig(url=fake.url), RETRY) as client:
        shared = many_histories(fake.url, [("fresh", KIND), ("other", KIND)], cache)
        assert client._run(success_after_send(shared, cache, fresh)) == ([("fresh", KIND)], True)
        assert cache.get(fresh) == (False, None)  # not kept
        assert cache.get((fake.url, "other", KIND)) == (True, None)  # kept: no success of it since the read began
