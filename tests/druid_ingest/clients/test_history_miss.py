"""A datasource without a duration history (a new one, a backfill's first days): the "no history" answer, a miss,
is kept ``MISS_TTL`` while waits come and go (a herd built over minutes reads it once, not every two minutes), and
a SUCCESS of that datasource seen by this process drops it, so the next wait reads Druid once more. Over real
sockets against the fake, through the shared poller; the cache ages on a simulated clock (the fake on real time).
"""

from __future__ import annotations

import asyncio

from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops import WaitMemory
from druid_ingest.ops._history import MISS_TTL, HistoryCache, task_history
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.testing import FakeDruid, SimClock, TaskPlan
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.clients.herd_tasks import submit
from tests.druid_ingest.history_race import success_after_send

FAST = PollSchedule(initial=0.05, max_delay=0.1, multiplier=1.0)
SLOW = PollSchedule(initial=30.0, max_delay=60.0, multiplier=1.5)
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.02, max_delay=0.05, deadline=10)


def history_reads(fake: FakeDruid) -> int:
    """``GET /tasks?state=complete&datasource=…``: a history read (the herd's listing is ``?max=0``)."""
    return sum(r.path.endswith("/tasks") and "state=complete" in r.query_string for r in fake.requests)


async def wave(client: AsyncDruidClient, ids: list[str], seconds: float = 0.6) -> None:
    """Waits that start at once, get their first looks, and are cancelled (a triggerer stopping triggers)."""
    waits = [asyncio.ensure_future(client.watch_task(i, 600, SLOW)) for i in ids]
    await asyncio.sleep(seconds)
    for wait in waits:
        wait.cancel()
    await asyncio.gather(*waits, return_exceptions=True)


def test_a_miss_is_kept_while_waits_come_and_go_and_a_success_drops_it(fake_druid_factory) -> None:
    clock = SimClock()
    fake: FakeDruid = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=1000)
    running = submit(fake, 30, datasources=1)  # herd_0: nothing completed, no history
    fake.plan_next_task(TaskPlan(duration=0.2))
    quick = submit(fake, 1, datasources=1, first=500)  # herd_0 too, ends in 0.2 s
    reads: list[int] = []
    first_looks: list[int] = []

    async def run() -> None:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        client.wait_memory = WaitMemory.on_clock(fake.url, clock.now)
        assert client.poller is not None  # the herd's listing gaps scaled down: each wave gets its first looks
        client.poller.list_every, client.poller.list_every_max = 0.1, 0.2
        try:
            await wave(client, running[:20])  # a herd: one listing, one history read for the 20 waits
            reads.append(history_reads(fake))
            for _ in range(3):  # more waits over 3 x 250 s of cache time: past the old 120 s, within MISS_TTL
                clock.sleep(250)
                await wave(client, running[20:])
                await wave(client, running[:3])  # a lone first look: its own GET, the kept miss
            reads.append(history_reads(fake))
            outcome = await client.watch_task(quick[0], 30, FAST)  # seen succeeding by this process
            assert outcome.kind == "success"
            reads.append(history_reads(fake))
            await wave(client, running[:20])  # the miss is gone: read once more
            await wave(client, running[20:])
            reads.append(history_reads(fake))
            first_looks.append(client.poller.stats["first looks"])
        finally:
            await client.close()

    fake.clear_requests()
    asyncio.run(run())
    assert reads == [1, 1, 1, 2], reads
    assert MISS_TTL > 3 * 250  # the waves came within the miss's TTL: only the success made the second read
    assert first_looks[0] >= 20 + 3 * 13 + 1 + 30, first_looks  # every wave got its first looks


def test_a_miss_read_across_a_success_is_not_kept(fake_druid_factory) -> None:
    """The success came while the read was under way: its listing may predate the run, so the miss it found is
    not kept and the next wait reads again."""
    fake: FakeDruid = fake_druid_factory()
    cache = HistoryCache(clock=SimClock().now)
    key = (fake.url, "fresh", "index_parallel")
    with DruidClient(ClusterConfig(url=fake.url), RETRY) as client:
        assert client._run(success_after_send(task_history(*key, cache), cache, key)) is None
        assert cache.get(key) == (False, None)  # not kept
        assert client._run(task_history(*key, cache)) is None
        assert cache.get(key) == (True, None)  # kept: no success since this read began
