"""The shared poller's served-inventory reads keep their own pace, a tick apart per datasource: a gate look does
not wait for the next bulk status call (a task green up to a tick later, issue 31), and a thousand looks at one
datasource still cost one read per tick. Against the fake Druid, on real sockets."""

from __future__ import annotations

import asyncio
from typing import Any

from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._shared_reads import ServedQuery, StatusQuery
from druid_ingest.testing import FakeDruid
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.sample_specs import day_spec

RETRY = RetryPolicy(max_attempts=2, initial_delay=0.02, max_delay=0.05, deadline=10)
TICK = 2.0
DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"


def _served_reads(fake: FakeDruid, datasource: str) -> list[float]:
    """When the fake received each served-inventory read of ``datasource``."""
    return [r.time for r in fake.requests if r.method == "GET" and f"/datasources/{datasource}/intervals/" in r.path]


async def _timed(loop: asyncio.AbstractEventLoop, awaitable: Any) -> float:
    """Seconds until ``awaitable`` is answered."""
    started = loop.time()
    await awaitable
    return loop.time() - started


def test_a_gate_look_goes_out_at_once_not_with_the_next_status_batch(fake_druid: FakeDruid) -> None:
    with DruidClient(ClusterConfig(url=fake_druid.url), RETRY) as sync:
        task_id = sync.ensure_submitted(day_spec(), idempotency_key="pace").task_id

    async def run() -> tuple[float, bool]:
        client = AsyncDruidClient(ClusterConfig(url=fake_druid.url), RETRY, shared=True, tick=TICK)
        try:
            poller = client.poller
            assert poller is not None
            await poller.answer(StatusQuery(task_id))  # a bulk status call just went out
            status = asyncio.ensure_future(poller.answer(StatusQuery(task_id)))  # the next batch: a tick later
            served = await _timed(asyncio.get_running_loop(), poller.answer(ServedQuery("events_web", DAY)))
            status_done = status.done()
            await status
            return served, status_done
        finally:
            await client.close()

    served_s, status_done = asyncio.run(run())
    assert not status_done  # the look was answered while the status batch still waited for its tick
    assert served_s < TICK / 2, served_s  # the old poller sent it with that batch: a tick later


def test_looks_at_one_datasource_are_a_tick_apart_and_another_datasource_does_not_wait(
        fake_druid: FakeDruid) -> None:
    async def run() -> tuple[list[Any], float]:
        client = AsyncDruidClient(ClusterConfig(url=fake_druid.url), RETRY, shared=True, tick=TICK)
        try:
            poller = client.poller
            assert poller is not None
            loop = asyncio.get_running_loop()
            # two looks filed together: one read
            first = await asyncio.gather(*(poller.answer(ServedQuery("events_web", DAY)) for _ in range(2)))
            again = asyncio.ensure_future(poller.answer(ServedQuery("events_web", DAY)))  # waits for the tick
            other = await _timed(loop, poller.answer(ServedQuery("events_app", DAY)))  # its own pace
            assert not again.done()
            return [*first, await again], other
        finally:
            await client.close()

    answers, other_s = asyncio.run(run())
    assert answers == [set(), set(), set()]
    reads = _served_reads(fake_druid, "events_web")
    assert len(reads) == 2, reads  # the two looks filed together shared one read
    assert reads[1] - reads[0] >= TICK * 0.95, reads  # one read per tick per datasource
    assert len(_served_reads(fake_druid, "events_app")) == 1
    assert other_s < TICK / 2, other_s
