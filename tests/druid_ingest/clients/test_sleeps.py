"""The loop's shared sleeps (``_async_client._sleep``, on a ``SlotTimer``): waits waking in one slot share its
future, and cancelling one of them (a trigger the triggerer stops) neither cancels the others nor wakes them
before their time."""

from __future__ import annotations

import asyncio

from druid_ingest.clients._async_client import AsyncDruidClient, _sleep
from druid_ingest.clients._slot_timer import GRID
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.clients.herd_tasks import submit

FAST = PollSchedule(initial=0.05, max_delay=0.1, multiplier=1.0)
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.02, max_delay=0.05, deadline=10)


def test_sleeps_ending_in_one_slot_share_its_future() -> None:
    async def run() -> tuple[bool, bool]:
        first, second, later = _sleep(0.3), _sleep(0.3), _sleep(0.3 + 2 * GRID)
        await asyncio.gather(first, second)
        return first is second, later is first

    same, other = asyncio.run(run())
    assert same and not other


def test_cancelling_one_sleeping_wait_leaves_the_others_asleep_until_their_time() -> None:
    async def run() -> tuple[list[object], list[float]]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        woke: list[float] = []

        async def sleeper() -> None:
            until = loop.time() + 0.5
            woken = _sleep(0.5)
            await woken
            while woken.early and until > (now := loop.time()):  # as ``_drive`` sleeps
                woken = _sleep(until - now)
                await woken
            woke.append(loop.time() - started)

        sleepers = [asyncio.ensure_future(sleeper()) for _ in range(5)]
        await asyncio.sleep(0.1)
        sleepers[0].cancel()
        return list(await asyncio.gather(*sleepers, return_exceptions=True)), woke

    outcomes, woke = asyncio.run(run())
    assert isinstance(outcomes[0], asyncio.CancelledError)
    assert outcomes[1:] == [None] * 4
    assert len(woke) == 4 and min(woke) >= 0.5 - 0.01  # none woke early (the loop may run a timer a hair early)


def test_a_wait_cancelled_mid_sleep_leaves_the_others_waits_to_finish(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=1.0, pending_delay=0.0, worker_capacity=100)
    ids = submit(fake, 6, datasources=2)

    async def run() -> list[object]:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.05)
        try:
            waits = [asyncio.ensure_future(client.watch_task(i, 30, FAST, predict=False)) for i in ids]
            await asyncio.sleep(0.4)  # every wait past its first look, sleeping between looks
            waits[0].cancel()
            return list(await asyncio.gather(*waits, return_exceptions=True))
        finally:
            await client.close()

    outcomes = asyncio.run(run())
    assert isinstance(outcomes[0], asyncio.CancelledError)
    assert [getattr(o, "kind", o) for o in outcomes[1:]] == ["success"] * 5
