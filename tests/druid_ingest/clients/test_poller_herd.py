"""The start-up herd: many waits resuming at once (a triggerer restart) make their first looks through the poller.

A wait's first look is a full status (createdTime, datasource, runner state) and, for a task holding its lock,
the lock ceiling (``activeLocks``). One wait alone still asks ``GET /status`` and one ``activeLocks`` POST; a
herd is answered by one active-task listing, one ``activeLocks`` POST carrying one filter per datasource, and one
history read for all its datasources (``ops.many_histories``). Counted by the fake Druid over real sockets.
"""

from __future__ import annotations

import asyncio

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._poller import LIST_MIN
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import UnknownTaskError
from druid_ingest.ops import WaitMemory
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.ops._shared_reads import TaskQuery
from druid_ingest.testing import FakeDruid, TaskPlan, index_parallel_spec
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.clients.herd_tasks import submit

FAST = PollSchedule(initial=0.05, max_delay=0.1, multiplier=1.0)
SLOW = PollSchedule(initial=30.0, max_delay=60.0, multiplier=1.5)
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.02, max_delay=0.05, deadline=10)
WRITER = {"writer": ("w", "write"), "reader": ("r", "read")}


def kinds(fake: FakeDruid) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in fake.requests:
        if r.path.endswith("/taskStatus"):
            kind = "bulk status"
        elif r.path.endswith("/status"):
            kind = "status"
        else:
            kind = f"{r.method} {r.path.rsplit('/', 1)[-1]}"
        out[kind] = out.get(kind, 0) + 1
    return out


async def herd(client: AsyncDruidClient, ids: list[str], memory: bool, seconds: float) -> None:
    """Every wait starts at once and runs ``seconds``, then is cancelled (as a triggerer stops triggers)."""
    waits = [asyncio.ensure_future(client.watch_task(i, 600, SLOW, predict=memory)) for i in ids]
    await asyncio.sleep(seconds)
    for wait in waits:
        wait.cancel()
    await asyncio.gather(*waits, return_exceptions=True)


def lock_versions(fake: FakeDruid, ids: list[str]) -> dict[str, str | None]:
    return {i: fake.task(i).version for i in ids}


def test_a_herd_of_300_waits_costs_at_most_two_requests_per_100(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=1000)
    ids = submit(fake, 300, datasources=3)
    fake.clear_requests()

    async def run() -> None:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.2)
        client.wait_memory = WaitMemory(fake.url)  # learns alone: no history cached by another test
        try:
            await herd(client, ids, memory=True, seconds=2.0)
        finally:
            await client.close()

    asyncio.run(run())
    seen = kinds(fake)
    assert seen.get("status", 0) == 0, seen  # no per-task first look
    assert seen.get("POST activeLocks", 0) == 1, seen  # one POST, one filter per datasource
    histories = [r.query_string for r in fake.requests if r.path.endswith("/tasks") and "complete" in r.query_string]
    assert histories == [f"state=complete&max=150&createdTimeInterval={ep.ANY_CREATED_TIME}"], histories  # one read
    assert len(fake.requests) <= 4, seen  # listing, locks, one history read (+ a spare)


def test_the_herd_finds_the_same_lock_ceiling_as_a_lone_wait(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=1.5, pending_delay=0.0, worker_capacity=100)
    ids = submit(fake, 1, datasources=4)

    with DruidClient(ClusterConfig(url=fake.url), RETRY) as sync:
        fake.clear_requests()
        alone = sync.watch_task(ids[0], 30, FAST, predict=False)
    assert [r.path.rsplit("/", 1)[-1] for r in fake.requests[:2]] == ["status", "activeLocks"]  # unchanged
    ids += submit(fake, 39, datasources=4, first=1)

    async def run() -> list:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        try:
            return await asyncio.gather(*(client.watch_task(i, 30, FAST, predict=False) for i in ids[1:]))
        finally:
            await client.close()

    fake.clear_requests()
    outcomes = asyncio.run(run())
    versions = lock_versions(fake, ids)
    assert alone.version_ceiling == versions[ids[0]]
    assert [o.kind for o in outcomes] == ["success"] * 39
    assert [o.version_ceiling for o in outcomes] == [versions[i] for i in ids[1:]]
    assert all(o.status is not None and o.status.datasource and o.status.created_time for o in outcomes)
    assert kinds(fake).get("POST activeLocks", 0) <= 2


def test_a_herd_resuming_after_some_tasks_ended_gets_their_full_status(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=1000)
    fake.plan_next_task(TaskPlan(duration=0.05))
    ended = submit(fake, 1, datasources=1, first=900)
    running = submit(fake, 30, datasources=2)
    fake.plan_next_task(TaskPlan(duration=0.05, outcome="FAILED"))
    failed = submit(fake, 1, datasources=1, first=901)
    ids = [*ended, *running, *failed]

    async def run() -> list:
        await asyncio.sleep(0.3)  # the two short tasks end while "the triggerer is down"
        fake.clear_requests()
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        try:
            waits = [asyncio.ensure_future(client.watch_task(i, 600, SLOW, predict=False)) for i in ids]
            done = await asyncio.gather(waits[0], waits[-1])
            for wait in waits:
                wait.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
            return list(done)
        finally:
            await client.close()

    first, last = asyncio.run(run())
    assert first.kind == "success" and first.status.datasource == "herd_0" and first.status.created_time
    assert last.kind == "failed"
    assert kinds(fake).get("status", 0) == 2  # only the two ended tasks need their own full status


def test_an_unknown_task_in_a_herd_is_still_unknown(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=1000)
    ids = submit(fake, 20, datasources=2)

    async def run() -> BaseException | None:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        try:
            waits = [asyncio.ensure_future(client.watch_task(i, 600, SLOW, predict=False))
                     for i in [*ids, "no_such_task"]]
            done = await asyncio.gather(waits[-1], return_exceptions=True)
            for wait in waits:
                wait.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
            return done[0]
        finally:
            await client.close()

    error = asyncio.run(run())
    assert isinstance(error, UnknownTaskError) and not error.race


@pytest.mark.parametrize("user", ["reader"])
def test_refused_active_locks_in_a_herd_fall_back_to_the_listed_queue_time(fake_druid_factory, user: str) -> None:
    fake = fake_druid_factory(task_duration=1.0, pending_delay=0.0, worker_capacity=100, auth=WRITER)
    ids = submit(fake, 20, datasources=2, auth=("writer", "w"))
    fake.clear_requests()

    async def run() -> list:
        client = AsyncDruidClient(ClusterConfig(url=fake.url, username=user, password="r"), RETRY, shared=True,
                                  tick=0.1)
        try:
            return await asyncio.gather(*(client.watch_task(i, 30, FAST, predict=False) for i in ids))
        finally:
            await client.close()

    outcomes = asyncio.run(run())
    assert [o.kind for o in outcomes] == ["success"] * 20
    assert all(o.version_ceiling for o in outcomes)  # the runner's queueInsertionTime from the listing
    seen = kinds(fake)
    assert seen.get("POST activeLocks", 0) == 1, seen  # refused once, remembered


def arrivals(fake: FakeDruid, n: int, every: float, group: int, list_every: float, list_max: float,
             ) -> tuple[dict[str, int], float, float]:
    """``n`` first looks arriving ``group`` at a time every ``every`` seconds (a runner building triggers slowly),
    through a poller whose listing gaps are scaled down (``list_every``, ``list_every_max``). Returns the poller's
    counts, the seconds from the first arrival to the last answer, and the longest any first look waited."""

    async def run() -> tuple[dict[str, int], float, float]:
        loop = asyncio.get_running_loop()
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.2)
        poller = client.poller
        assert poller is not None
        poller.list_every, poller.list_every_max = list_every, list_max
        waited: list[float] = []

        async def look(task_id: str) -> None:
            asked = loop.time()
            await poller.answer(TaskQuery(task_id))
            waited.append(loop.time() - asked)

        try:
            start = loop.time()
            looks = []
            for first in range(0, n, group):
                looks += [asyncio.ensure_future(look(f"slow_task_{i}")) for i in range(first, min(n, first + group))]
                await asyncio.sleep(every)
            await asyncio.gather(*looks)
            return dict(poller.stats), loop.time() - start, max(waited)
        finally:
            await client.close()

    return asyncio.run(run())


def seed(fake: FakeDruid, n: int, datasources: int = 5) -> None:
    """``n`` running tasks over ``datasources`` datasources, a day each (no two share a lock), without HTTP."""
    fake.seed_tasks(index_parallel_spec(f"slow_{i % datasources}", task_id=f"slow_task_{i}",
                                        intervals=[f"{2000 + i // 336}-{1 + (i // 28) % 12:02d}-{1 + i % 28:02d}/P1D"])
                    for i in range(n))
    fake.clear_requests()


def test_a_herd_built_slowly_costs_listings_growing_with_the_gap_not_one_per_window(fake_druid_factory) -> None:
    # 800 first looks, 8 every 40 ms (~200 a second, 16 per gathering window) over ~4 s, gaps scaled from 5 s /
    # 30 s to 0.1 s / 0.6 s: the build lasts ~7 capped gaps, as a 10,000-trigger build of ~3.5 minutes would (the
    # fixed 0.1 s gap listed once per 0.2 s gathering window: ~20)
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=1000)
    seed(fake, 800)
    stats, elapsed, longest = arrivals(fake, 800, every=0.04, group=8, list_every=0.1, list_max=0.6)
    assert stats["first looks"] == 800
    # listings at 0, 0.1, 0.3, 0.7, then one per 0.6: at most 4 + (elapsed - 0.7) / 0.6 (+1 for the last); a
    # loaded machine only stretches the gaps (each listing waits at least its gap), never shortens them
    assert stats["listing"] <= 5 + max(0.0, elapsed - 0.7) / 0.6, (stats, elapsed)
    # a GET each only before the herd is recognised (a first window of fewer than LIST_MIN) or for a last few
    assert stats.get("first", 0) < 2 * LIST_MIN, stats
    assert stats["locks"] <= stats["listing"] + 2, stats  # one activeLocks POST per listing (or per GET batch)
    assert longest < 0.6 + 5.0, longest  # the capped gap, plus a generous margin for a loaded machine


def test_a_trickle_below_a_window_s_minimum_is_still_answered_by_listings(fake_druid_factory) -> None:
    # one first look every 30 ms: ~6 per gathering window, fewer than LIST_MIN, which used to cost a GET each
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=1000)
    seed(fake, 120)
    stats, elapsed, _ = arrivals(fake, 120, every=0.03, group=1, list_every=0.5, list_max=1.0)
    assert stats["first looks"] == 120
    assert stats.get("first", 0) < 2 * LIST_MIN, stats  # the trickle's first window or two, then listings
    assert stats["listing"] <= 5 + elapsed / 1.0, (stats, elapsed)


def test_a_lone_wait_after_the_herd_is_over_is_answered_at_once(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=1000)
    seed(fake, 41)

    async def run() -> tuple[dict[str, int], float]:
        loop = asyncio.get_running_loop()
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.2)
        poller = client.poller
        assert poller is not None
        poller.list_every, poller.list_every_max = 0.1, 0.3
        try:
            await asyncio.gather(*(poller.answer(TaskQuery(f"slow_task_{i}")) for i in range(40)))
            await asyncio.sleep(0.1 + 0.3 + 0.3)  # past the herd's gap and the cap: the herd is over
            asked = loop.time()
            await poller.answer(TaskQuery("slow_task_40"))
            return dict(poller.stats), loop.time() - asked
        finally:
            await client.close()

    stats, waited = asyncio.run(run())
    assert stats["listing"] == 1 and stats["first"] == 1, stats  # the lone wait: its own GET, no listing
    assert waited < 0.3 + 5.0, waited
