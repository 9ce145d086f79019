"""A polling wait's next look waits in the poller: one await per look, not a sleep's and then a read's.

A wait past its first look sleeps, then reads its task's status in the next bulk batch. The sleep now travels
with the read (``StatusQuery.after``): the poller files the look in the slot it is due in and moves it to the
batch then, so between two looks the wait's task awaits one future, the look's own (each await's future, iterator
and wake-up outlive a sleep of seconds and reach the collector's oldest generation). Counted over real sockets
against the fake Druid.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging

from druid_ingest.clients._async_client import _SLEEPS, AsyncDruidClient
from druid_ingest.clients._poller import SharedPoller
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.testing.fake_faults import Fault
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.clients.herd_tasks import submit

EVERY = PollSchedule(initial=0.6, max_delay=0.6, multiplier=1.0)
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.02, max_delay=0.05, deadline=10)


def bulk_posts(fake) -> list:
    return [r for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/taskStatus"]


def loop_sleepers() -> int:
    """Waits asleep on the loop's sleep slots (``_Sleeps``): a look's sleep outside the poller."""
    sleeps = _SLEEPS.get(asyncio.get_running_loop())
    return sum(len(getattr(slot, "_callbacks", None) or ()) for slot in sleeps.slots.values()) if sleeps else 0


def test_between_two_looks_a_polling_wait_awaits_only_its_look_held_by_the_poller(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=100)
    ids = submit(fake, 40, datasources=2)

    async def run() -> tuple[int, int, int]:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        poller = client.poller
        assert isinstance(poller, SharedPoller)
        waits = [asyncio.ensure_future(client.watch_task(i, 600, EVERY, predict=False)) for i in ids]
        try:
            while poller.stats["first looks"] < len(ids):
                await asyncio.sleep(0.05)
            held = asleep = 0
            for _ in range(40):  # 2 s: three looks each, sampled between ticks and during them
                await asyncio.sleep(0.05)
                held = max(held, poller.waiting)
                asleep = max(asleep, loop_sleepers())
            return held, asleep, poller.stats["answered"]
        finally:
            for wait in waits:
                wait.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
            await client.close()

    held, asleep, answered = asyncio.run(run())
    assert held == len(ids)  # every wait's next look filed in the poller (before: 0, each asleep on its own)
    assert asleep == 0  # and none asleep on the loop's sleeps: one await per look
    assert answered >= 2 * len(ids)  # the waits kept looking


def test_a_look_due_later_is_read_once_due_never_sooner(fake_druid_factory) -> None:
    """The look goes out in a batch once its sleep is over, never earlier: the wait's schedule decides when it
    looks, as before. (How soon after is the tick's and the slot grid's, plus the loop's lag on a loaded machine:
    not asserted here.)"""
    fake = fake_druid_factory(task_duration=3600, pending_delay=0.0, worker_capacity=100)
    ids = submit(fake, 3, datasources=1)

    async def run() -> None:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        waits = [asyncio.ensure_future(client.watch_task(i, 600, EVERY, predict=False)) for i in ids]
        try:
            await asyncio.sleep(3.2)
        finally:
            for wait in waits:
                wait.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
            await client.close()

    fake.clear_requests()
    asyncio.run(run())
    times = [r.time for r in bulk_posts(fake)]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(times) >= 3, times
    assert all(gap >= 0.6 - 0.02 for gap in gaps), gaps  # never before the wait's delay (0.6 s) is over
    batches = [sorted(r.json) for r in bulk_posts(fake)]
    assert all(set(batch) <= set(ids) for batch in batches)
    assert sorted(ids) in batches  # looks due together share a batch (a slot's edge may split one, rarely)


def test_an_outage_reaches_every_wait_whose_look_was_due_and_they_look_again(fake_druid_factory, caplog) -> None:
    """A failed bulk call fails the looks of its batch (each wait logs the outage and looks again, as before):
    looks held in the poller while the Overlord is down are no exception."""
    fake = fake_druid_factory(task_duration=2.5, pending_delay=0.0, worker_capacity=100)
    ids = submit(fake, 6, datasources=2)

    async def run() -> list:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        try:
            waits = [asyncio.ensure_future(client.watch_task(i, 30, EVERY, predict=False)) for i in ids]
            await asyncio.sleep(0.8)  # past the first looks, the next ones held in the poller
            down.append(fake.add_fault(Fault(method="POST", path=r"/taskStatus$", status=500, times=3)))
            return list(await asyncio.gather(*waits))
        finally:
            await client.close()

    down: list[Fault] = []
    with caplog.at_level(logging.WARNING, logger="druid_ingest.waits"):
        outcomes = asyncio.run(run())
    assert [o.kind for o in outcomes] == ["success"] * len(ids)
    assert down[0].fired == 3  # one batch's three attempts
    lines = [r.getMessage() for r in caplog.records]
    lost = {i for i in ids if any(i in line and "unreachable while" in line for line in lines)}
    back = {i for i in ids if any(i in line and "reachable again" in line for line in lines)}
    assert lost == back == set(ids)  # every wait saw the outage, and its end


def test_a_polling_wait_sleeps_through_its_looks_and_its_progress_keeps_its_context(fake_druid_factory) -> None:
    """The poller steps a polling wait from look to look: its task awaits one future across them (before: one per
    look, each leaving a future, an iterator and a wake-up behind), and its progress lines are written in its
    task's context (a triggerer routes a log line to its trigger by the context's log variables)."""
    fake = fake_druid_factory(task_duration=6.0, pending_delay=0.0, worker_capacity=100)  # runs past the sampling
    ids = submit(fake, 12, datasources=2)
    who: contextvars.ContextVar[str] = contextvars.ContextVar("who")
    lines: list[tuple[str, str]] = []

    async def wait(client: AsyncDruidClient, task_id: str) -> object:
        who.set(task_id)
        return await client.watch_task(task_id, 30, EVERY, lambda p: lines.append((who.get(), p.status.task_id)),
                                       predict=False)

    async def run() -> tuple[list, list[set[int]]]:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        poller = client.poller
        assert poller is not None
        try:
            waits = [asyncio.ensure_future(wait(client, i)) for i in ids]
            while poller.stats["first looks"] < len(ids):
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.1)
            awaited: list[set[int]] = [set() for _ in ids]
            for _ in range(20):  # 1 s: a look each at least, while every task still runs
                await asyncio.sleep(0.05)
                for seen, task in zip(awaited, waits, strict=True):
                    if not task.done():
                        seen.add(id(task._fut_waiter))  # type: ignore[attr-defined]
            return list(await asyncio.gather(*waits)), awaited
        finally:
            await client.close()

    outcomes, awaited = asyncio.run(run())
    assert [getattr(o, "kind", o) for o in outcomes] == ["success"] * len(ids)
    assert all(len(seen) == 1 for seen in awaited), awaited  # one await across the looks
    assert lines and all(mine == task_id for mine, task_id in lines)  # each line in its own wait's context
    assert {task_id for _, task_id in lines} == set(ids)
