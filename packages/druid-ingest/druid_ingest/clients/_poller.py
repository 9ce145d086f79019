"""One poller per event loop and cluster: every wait's status and served-inventory reads, batched per tick.

A triggerer runs many Druid waits on one event loop. Each wait still decides *when* it wants to look (its own
schedule); the poller decides *how*: all status queries that arrive within one tick go out as one
``POST /druid/indexer/v1/taskStatus`` (druid-contract §bulk-status), and all served-inventory queries of one
datasource as one read over the merged span. When the bulk call is refused (403 without STATE WRITE, 404/405 on
an older Druid or a proxy) it falls back to one ``GET /status`` per task, and remembers that. A cancelled wait
just drops its future; two waits on one task id share one entry; nothing is persisted, so waits rebuilt after
a triggerer restart simply query again.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import timezone
from typing import Any

from druid_ingest.api import TaskStatus
from druid_ingest.api import _endpoints as ep
from druid_ingest.ops import ServedQuery, StatusQuery, direct
from druid_ingest.planning import parse_interval
from druid_ingest.wire import (
    DruidAuthError,
    DruidError,
    DruidNotFoundError,
    DruidValidationError,
    Operation,
    SharedRead,
    UnknownTaskError,
    call,
)

__all__ = ["DEFAULT_TICK", "SharedPoller"]

#: the shortest interval between two batches (seconds): at most one bulk status call per tick per cluster
DEFAULT_TICK = 1.0
#: how long a batch gathers the queries arriving together before it is sent
_GATHER = 0.02
#: served-inventory spans closer than this (seconds) are read together
_MERGE_GAP = 86400.0

Runner = Callable[[Operation[Any]], Awaitable[Any]]


class SharedPoller:
    """Batches the :class:`~druid_ingest.ops.StatusQuery` and :class:`~druid_ingest.ops.ServedQuery` of one
    loop's waits per tick.

    ``run`` executes one operation with the shared client (its retry policy and session). ``stats`` counts the
    requests made, by kind (``bulk``, ``status``, ``served``), and the status reads ``answered``.
    """

    def __init__(self, run: Runner, tick: float = DEFAULT_TICK) -> None:
        self._run = run
        self.tick = tick
        self.bulk_allowed = True
        self.stats: Counter[str] = Counter()
        self._status: dict[str, list[asyncio.Future[Any]]] = {}
        self._served: dict[str, list[tuple[str, asyncio.Future[Any]]]] = {}
        self._ticker: asyncio.Task[None] | None = None
        self._sent_at = float("-inf")

    async def answer(self, query: SharedRead) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if isinstance(query, StatusQuery):
            self._status.setdefault(query.task_id, []).append(future)
        elif not isinstance(query, ServedQuery):  # pragma: no cover - a new SharedRead the poller does not batch
            return await self._run(direct(query))
        else:
            self._served.setdefault(query.datasource, []).append((query.span, future))
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.get_running_loop().create_task(self._tick())
        return await future  # a cancelled wait cancels only its own future; the batch skips it

    @property
    def waiting(self) -> int:
        return sum(len(f) for f in self._status.values()) + sum(len(f) for f in self._served.values())

    async def close(self) -> None:
        if self._ticker is not None and not self._ticker.done():
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)

    async def _tick(self) -> None:
        """Send what is waiting: after a short gathering window, and never sooner than ``tick`` after the last
        batch, so a lone wait is answered at once and a thousand waits cost one call per tick."""
        loop = asyncio.get_running_loop()
        while self._status or self._served:
            await asyncio.sleep(max(_GATHER, self._sent_at + self.tick - loop.time()))
            self._sent_at = loop.time()
            statuses, served = self._status, self._served
            self._status, self._served = {}, {}
            await asyncio.gather(self._answer_statuses(statuses),
                                 *(self._answer_served(ds, wanted) for ds, wanted in served.items()))

    async def _answer_statuses(self, waiting: dict[str, list[asyncio.Future[Any]]]) -> None:
        ids = [task_id for task_id, futures in waiting.items() if any(not f.done() for f in futures)]
        if not ids:
            return
        try:
            found = await self._statuses(ids)
        except DruidError as exc:
            for futures in waiting.values():
                _settle(futures, error=exc)
            return
        self.stats["answered"] += sum(len(futures) for futures in waiting.values())
        for task_id, futures in waiting.items():
            status = found.get(task_id)
            if status is None:
                _settle(futures, error=UnknownTaskError(task_id))
            else:
                _settle(futures, value=status)

    async def _statuses(self, ids: list[str]) -> dict[str, TaskStatus]:
        if self.bulk_allowed:
            try:
                self.stats["bulk"] += 1
                found: dict[str, TaskStatus] = await self._run(call(ep.bulk_status(ids), ep.parse_bulk_status))
                return found
            except (DruidAuthError, DruidNotFoundError, DruidValidationError):
                self.bulk_allowed = False  # refused: per-task GETs from now on
        self.stats["status"] += len(ids)
        answers = await asyncio.gather(*(self._run(direct(StatusQuery(i))) for i in ids), return_exceptions=True)
        out: dict[str, TaskStatus] = {}
        for task_id, answer in zip(ids, answers, strict=True):
            if isinstance(answer, TaskStatus):
                out[task_id] = answer
            elif isinstance(answer, DruidError) and not isinstance(answer, UnknownTaskError):
                raise answer
        return out

    async def _answer_served(self, datasource: str, wanted: list[tuple[str, asyncio.Future[Any]]]) -> None:
        live = [(span, f) for span, f in wanted if not f.done()]
        for span, futures in _merge_spans(live):
            try:
                self.stats["served"] += 1
                ids = await self._run(direct(ServedQuery(datasource, span)))
            except DruidError as exc:
                _settle(futures, error=exc)
                continue
            _settle(futures, value=ids)


def _settle(futures: list[asyncio.Future[Any]], *, value: Any = None, error: BaseException | None = None) -> None:
    for future in futures:
        if future.done():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)


def _merge_spans(wanted: list[tuple[str, asyncio.Future[Any]]]) -> list[tuple[str, list[asyncio.Future[Any]]]]:
    """Spans within a day of each other become one read (its answer is a superset for each of them)."""
    parsed = sorted(((*parse_interval(span), span, f) for span, f in wanted), key=lambda item: item[0])
    merged: list[tuple[Any, Any, list[asyncio.Future[Any]]]] = []
    for start, end, _span, future in parsed:
        if merged and (start - merged[-1][1]).total_seconds() <= _MERGE_GAP:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end), [*merged[-1][2], future])
        else:
            merged.append((start, end, [future]))
    iso = "%Y-%m-%dT%H:%M:%S.000Z"
    utc = timezone.utc
    return [(f"{s.astimezone(utc).strftime(iso)}/{e.astimezone(utc).strftime(iso)}", futures)
            for s, e, futures in merged]
