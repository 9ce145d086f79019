"""The shared poller: many waits on one event loop, one bulk status call per tick, against the fake Druid."""

from __future__ import annotations

import asyncio

from druid_ingest.clients._async_client import AsyncDruidClient, shared_client
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.testing import FakeDruid, TaskPlan
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.sample_specs import day_spec

FAST = PollSchedule(initial=0.05, max_delay=0.1, multiplier=1.0)
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.02, max_delay=0.05, deadline=10)


def submit_many(fake: FakeDruid, durations: list[float], config: ClusterConfig | None = None) -> list[str]:
    ids = []
    with DruidClient(config or ClusterConfig(url=fake.url), RETRY) as client:
        for n, duration in enumerate(durations):
            fake.plan_next_task(TaskPlan(duration=duration, outcome="FAILED" if n % 5 == 4 else "SUCCESS"))
            ids.append(client.ensure_submitted(day_spec(), idempotency_key=f"k{n}").task_id)
    return ids


def status_gets(fake: FakeDruid) -> list:
    return [r for r in fake.requests if r.method == "GET" and r.path.endswith("/status")]


def bulk_posts(fake: FakeDruid) -> list:
    return [r for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/taskStatus"]


async def watch_all(client: AsyncDruidClient, ids: list[str]) -> list:
    return await asyncio.gather(*(client.watch_task(i, 30, FAST, predict=False) for i in ids))


def test_many_waits_one_bulk_call_per_tick_and_each_gets_its_own_end(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=0.5, pending_delay=0.0, worker_capacity=40)
    ids = submit_many(fake, [0.3 + 0.05 * n for n in range(20)])
    fake.clear_requests()

    async def run() -> list:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        try:
            return await watch_all(client, ids)
        finally:
            await client.close()

    outcomes = asyncio.run(run())
    assert [o.task_id for o in outcomes] == ids
    assert [o.kind for o in outcomes] == ["failed" if n % 5 == 4 else "success" for n in range(20)]
    # the 20 first, full looks arrive together: one active-task listing answers them (test_poller_herd.py)
    assert len(status_gets(fake)) < 5  # a GET only for a task that ended before the listing
    assert len([r for r in fake.requests if r.path == "/druid/indexer/v1/tasks" and r.query.get("max") == "0"]) == 1
    batches = bulk_posts(fake)
    assert batches and max(len(b.json) for b in batches) > 1  # waits really shared calls
    assert len(batches) < sum(len(b.json) for b in batches)


def test_a_refused_bulk_call_falls_back_to_per_task_gets_once_and_for_all(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=0.4, pending_delay=0.0,
                              auth={"writer": ("w", "write"), "reader": ("r", "read")})
    ids = submit_many(fake, [0.4, 0.5, 0.6], ClusterConfig(url=fake.url, username="writer", password="w"))
    fake.clear_requests()

    async def run() -> list:
        client = AsyncDruidClient(ClusterConfig(url=fake.url, username="reader", password="r"), RETRY, shared=True,
                                  tick=0.05)
        try:
            outcomes = await watch_all(client, ids)
            assert client.poller is not None and client.poller.bulk_allowed is False
            return outcomes
        finally:
            await client.close()

    outcomes = asyncio.run(run())
    assert [o.kind for o in outcomes] == ["success", "success", "success"]
    refused = [r for r in bulk_posts(fake)]
    assert len(refused) == 1  # one 403, remembered
    assert len(status_gets(fake)) > 3  # the per-task fallback


def test_cancelled_waits_leave_nothing_behind_and_a_rebuilt_wait_resumes(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=0.8, pending_delay=0.0)
    ids = submit_many(fake, [0.8, 0.8, 0.8])

    async def run() -> tuple[list, int, object]:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.05)
        try:
            waits = [asyncio.ensure_future(client.watch_task(i, 30, FAST, predict=False)) for i in ids]
            await asyncio.sleep(0.3)
            waits[0].cancel()  # what a triggerer does to a trigger it stops (kill, or restart)
            others = await asyncio.gather(*waits[1:])
            assert waits[0].cancelled()
            left = client.poller.waiting if client.poller else -1
            rebuilt = await client.watch_task(ids[0], 30, FAST, predict=False)  # re-registered from its state
            return others, left, rebuilt
        finally:
            await client.close()

    others, left, rebuilt = asyncio.run(run())
    assert [o.kind for o in others] == ["success", "success"] and left == 0
    assert rebuilt.kind == "success" and rebuilt.task_id == ids[0]
    assert len([r for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task"]) == 3


def test_two_waits_on_one_task_share_one_entry_and_one_client_per_loop(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=0.5, pending_delay=0.0)
    [task_id] = submit_many(fake, [0.5])
    fake.clear_requests()
    config = ClusterConfig(url=fake.url)

    async def run() -> list:
        async with shared_client(config, RETRY) as first, shared_client(config, RETRY) as second:
            assert first is second and first.poller is not None  # one session and poller per loop and cluster
            return await asyncio.gather(first.watch_task(task_id, 30, FAST, predict=False),
                                        second.watch_task(task_id, 30, FAST, predict=False))

    outcomes = asyncio.run(run())
    assert [o.kind for o in outcomes] == ["success", "success"]
    assert all(b.json == [task_id] for b in bulk_posts(fake))  # the id once per batch, however many waits


def test_handoff_waits_on_one_datasource_share_inventory_reads(fake_druid_factory) -> None:
    fake = fake_druid_factory(task_duration=0.2, handoff_delay=0.6, pending_delay=0.0, worker_capacity=8)
    days = [f"2026-11-0{n}T00:00:00Z/2026-11-0{n + 1}T00:00:00Z" for n in range(1, 5)]
    with DruidClient(ClusterConfig(url=fake.url), RETRY) as client:
        ids = []
        for day in days:
            spec = day_spec()
            spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = [day]
            ids.append(client.ensure_submitted(spec).task_id)
        targets = []
        for task_id, day in zip(ids, days, strict=True):
            client.wait_for_task(task_id, 20, FAST, predict=False)
            targets.append(client.handoff_target(task_id, "events_web", [day]))
    fake.clear_requests()

    async def run() -> list:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.1)
        try:
            return await asyncio.gather(*(client.wait_for_handoff(t, 20, FAST) for t in targets))
        finally:
            await client.close()

    results = asyncio.run(run())
    assert [r.state for r in results] == ["loaded"] * 4
    served_reads = [r.path for r in fake.requests if "/intervals/" in r.path]
    merged = [p for p in served_reads if p.endswith("2026-11-01T00:00:00.000Z_2026-11-05T00:00:00.000Z")]
    assert merged, served_reads  # one read of the merged span answered the four days' waits
    assert len(served_reads) < 4 * len(merged) + 4
