"""The shared poller's edges that a mutation run found untested: a bulk endpoint that answers 404, ids the bulk
answer leaves out, and the merged served-inventory span (its bounds and the one-day gap); and what a bulk answer
is held as across its tick."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from druid_ingest.api._models import TaskStatus
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._poller import _merge_spans
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidAuthError, UnknownTaskError
from druid_ingest.ops._shared_reads import ServedQuery, StatusQuery
from druid_ingest.testing import FakeDruid, Fault
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.sample_specs import day_spec

RETRY = RetryPolicy(max_attempts=2, initial_delay=0.02, max_delay=0.05, deadline=10)
BULK = r"^/druid/indexer/v1/taskStatus$"
NOT_THERE = "index_parallel_nobody_knows_this_task"


def _submit(fake: FakeDruid, n: int) -> list[str]:
    with DruidClient(ClusterConfig(url=fake.url), RETRY) as client:
        return [client.ensure_submitted(day_spec(), idempotency_key=f"edge{i}").task_id for i in range(n)]


def _ask(fake: FakeDruid, ids: list[str]) -> tuple[list[Any], dict[str, int], bool]:
    """Each id's answer (a TaskStatus or the exception) from one batch of the shared poller."""

    async def run() -> tuple[list[Any], dict[str, int], bool]:
        client = AsyncDruidClient(ClusterConfig(url=fake.url), RETRY, shared=True, tick=0.05)
        try:
            assert client.poller is not None
            answers = await asyncio.gather(*(client.poller.answer(StatusQuery(i)) for i in ids),
                                           return_exceptions=True)
            return list(answers), dict(client.poller.stats), client.poller.bulk_allowed
        finally:
            await client.close()

    return asyncio.run(run())


def _requests(fake: FakeDruid) -> tuple[list[Any], list[Any]]:
    bulk = [r for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/taskStatus"]
    gets = [r for r in fake.requests if r.method == "GET" and r.path.endswith("/status")]
    return bulk, gets


def test_a_bulk_endpoint_answering_404_falls_back_to_per_task_gets(fake_druid: FakeDruid) -> None:
    ids = _submit(fake_druid, 2)
    fake_druid.clear_requests()
    fake_druid.add_fault(Fault(method="POST", path=BULK, kind="status", status=404,
                               body="<html><body>Not Found</body></html>", content_type="text/html", times=None))
    answers, stats, bulk_allowed = _ask(fake_druid, ids)
    assert [type(a) for a in answers] == [TaskStatus, TaskStatus]
    assert [a.task_id for a in answers] == ids
    assert bulk_allowed is False  # remembered: an older Druid or a proxy without the endpoint
    bulk, gets = _requests(fake_druid)
    assert len(bulk) == 1 and sorted(r.path for r in gets) == sorted(f"/druid/indexer/v1/task/{i}/status" for i in ids)
    assert stats["bulk"] == 1 and stats["status"] == 2


def test_an_id_the_bulk_answer_leaves_out_is_unknown_for_that_id_only(fake_druid: FakeDruid) -> None:
    [known] = _submit(fake_druid, 1)
    fake_druid.clear_requests()
    answers, stats, bulk_allowed = _ask(fake_druid, [known, NOT_THERE])
    assert isinstance(answers[0], TaskStatus) and answers[0].task_id == known
    assert isinstance(answers[1], UnknownTaskError) and NOT_THERE in str(answers[1])
    bulk, gets = _requests(fake_druid)
    assert bulk_allowed is True and len(bulk) == 1 and sorted(bulk[0].json) == sorted([known, NOT_THERE])
    assert gets == [] and stats["answered"] == 2


def test_an_unknown_id_in_the_per_task_fallback_fails_only_its_own_wait(fake_druid: FakeDruid) -> None:
    [known] = _submit(fake_druid, 1)
    fake_druid.add_fault(Fault(method="POST", path=BULK, kind="status", status=404, times=None))
    answers, _, bulk_allowed = _ask(fake_druid, [NOT_THERE, known])
    assert bulk_allowed is False
    assert isinstance(answers[0], UnknownTaskError) and NOT_THERE in str(answers[0])
    assert isinstance(answers[1], TaskStatus) and answers[1].task_id == known


def _merged(*spans: str) -> list[tuple[str, list[Any]]]:
    """``_merge_spans`` of ``spans``, with each future shown as its span's position. The stand-ins do not
    compare, like real futures: a merge that fell back on ordering them would raise."""
    tags = [object() for _ in spans]
    merged = _merge_spans(list(zip(spans, tags, strict=True)))  # type: ignore[arg-type]
    return [(span, [tags.index(t) for t in futures]) for span, futures in merged]


def z(day: str, time: str = "00:00:00") -> str:
    return f"2026-11-{day}T{time}.000Z"


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        # a span inside another: the merged read keeps the outer end (a max, not a min)
        ((f"{z('01')}/{z('05')}", f"{z('02')}/{z('03')}"), [(f"{z('01')}/{z('05')}", [0, 1])]),
        # sorted by start before merging; the later end wins
        ((f"{z('03')}/{z('04')}", f"{z('01')}/{z('03', '12:00:00')}"), [(f"{z('01')}/{z('04')}", [1, 0])]),
        # exactly one day apart: still one read (<= the gap)
        ((f"{z('01')}/{z('02')}", f"{z('03')}/{z('04')}"), [(f"{z('01')}/{z('04')}", [0, 1])]),
        # one second more than a day apart: two reads
        ((f"{z('01')}/{z('02')}", f"{z('03', '00:00:01')}/{z('04')}"),
         [(f"{z('01')}/{z('02')}", [0]), (f"{z('03', '00:00:01')}/{z('04')}", [1])]),
        # a gap measured from the end of the merged span so far, not from the last span's start
        ((f"{z('01')}/{z('10')}", f"{z('02')}/{z('03')}", f"{z('11')}/{z('12')}"),
         [(f"{z('01')}/{z('12')}", [0, 1, 2])]),
        # two waits on the very same span: one read (and no comparing of their futures)
        ((f"{z('01')}/{z('02')}", f"{z('01')}/{z('02')}"), [(f"{z('01')}/{z('02')}", [0, 1])]),
        # offsets are read and written back in UTC
        (("2026-11-01T02:00:00+02:00/2026-11-02T02:00:00+02:00",), [(f"{z('01')}/{z('02')}", [0])]),
    ],
)
def test_merged_served_spans(spans: tuple[str, ...], expected: list[tuple[str, list[int]]]) -> None:
    assert _merged(*spans) == expected


def test_a_refused_served_read_fails_each_of_its_waits_and_a_far_span_still_gets_its_answer(
        fake_druid: FakeDruid) -> None:
    near = [f"{z('01')}/{z('02')}", f"{z('02')}/{z('03')}"]  # one merged read, refused
    far = f"{z('20')}/{z('21')}"  # its own read, answered
    fake_druid.add_fault(Fault(method="GET", path=r"/intervals/2026-11-01T00", kind="status", status=403,
                               body='{"Access-Check-Result":"Unauthorized"}', times=None))

    async def run() -> tuple[list[Any], dict[str, int]]:
        client = AsyncDruidClient(ClusterConfig(url=fake_druid.url), RETRY, shared=True, tick=0.05)
        try:
            assert client.poller is not None
            asked = asyncio.gather(*(client.poller.answer(ServedQuery("events_web", s)) for s in [*near, far]),
                                   return_exceptions=True)
            answers = await asyncio.wait_for(asked, 10)  # a wait left unanswered fails here, not at pytest's 300 s
            return list(answers), dict(client.poller.stats)
        finally:
            await client.close()

    answers, stats = asyncio.run(run())
    assert [type(a) for a in answers[:2]] == [DruidAuthError, DruidAuthError]
    assert answers[2] == set()  # nothing served there: an empty answer, not the neighbour's error
    assert stats["served"] == 2


def test_a_bulk_answer_is_held_across_the_tick_as_rows_the_collector_does_not_track(fake_druid: FakeDruid) -> None:
    ids = _submit(fake_druid, 3)

    async def run() -> dict[str, Any]:
        client = AsyncDruidClient(ClusterConfig(url=fake_druid.url), RETRY, shared=True, tick=0.05)
        try:
            assert client.poller is not None
            return await client.poller._statuses(ids)
        finally:
            await client.close()

    found = asyncio.run(run())
    assert sorted(found) == sorted(ids)
    gc.collect()
    # thousands of statuses a second, alive while the tick steps its waits: as TaskStatus objects they were what
    # the triggerer's polling promoted to the oldest generation (P3: 0.45 per read, 0.06 as rows)
    assert not any(gc.is_tracked(row) for row in found.values())
    assert [TaskStatus(*row).task_id for row in found.values()] == list(found)
