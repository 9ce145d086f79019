"""One poller per event loop and cluster: every wait's status and served-inventory reads, batched per tick.

A triggerer runs many Druid waits on one event loop. Each wait still decides *when* it wants to look (its own
schedule); the poller decides *how*: all status queries that arrive within one tick go out as one
``POST /druid/indexer/v1/taskStatus`` (druid-contract §bulk-status), and all served-inventory queries of one
datasource that arrive within one tick as one read over the merged span. The served reads keep their own pace, a
tick apart per datasource: they are one request per datasource whatever the status batch does, and a gate look
held back until the next status batch is a task green up to a tick later. When the bulk call is refused (403
without STATE WRITE, 404/405 on an older Druid or a proxy) it falls back to one ``GET /status`` per task, and
remembers that. A cancelled wait just drops its future; two waits on one task id share one entry; nothing is
persisted, so waits rebuilt after a triggerer restart simply query again. A status look due later
(``StatusQuery.after``: a polling wait's sleep) waits in the poller, on one loop timer for all of them, and a
polling wait's task hands its operation over at its first status look (:meth:`SharedPoller.follow`, ``_follow``):
the poller steps it from look to look, and the task wakes only when the wait wants something else (an await per
look leaves a future, an iterator and a wake-up that outlive a sleep of seconds and reach the collector's oldest
generation). A bulk answer is read into plain rows, each made a ``TaskStatus`` only as its waits are stepped, for
the same reason.

Those rebuilt waits arrive together (the start-up herd): their first looks (a full status each) are answered by
one listing of the active tasks (``GET /tasks?max=0``) instead of one ``GET /status`` each, their lock ceilings
by one ``activeLocks`` POST carrying a filter per datasource, and their history reads by one read per datasource
and task type (druid-contract §first-looks). A herd that the runner takes long to build is answered by listings
spaced further apart once it goes on (5, then every 10 s), so its cost grows by at most six listings (and six
``activeLocks`` POSTs) a minute of build while no first look waits more than ``LIST_EVERY_MAX``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timezone
from typing import Any

from druid_ingest.api import TaskStatus
from druid_ingest.api import endpoints as ep
from druid_ingest.clients._follow import Held, follower, futures_of, hold, is_gone, settle, step
from druid_ingest.clients._slot_timer import SlotTimer
from druid_ingest.errors import DruidAuthError, DruidError, DruidNotFoundError, DruidValidationError, UnknownTaskError
from druid_ingest.ops import (
    ServedQuery,
    StatusQuery,
    TaskQuery,
    WaitMemory,
    ceiling_from_locks,
    direct,
    holds_lock,
    listed_ceiling,
    many_histories,
    task_history,
)
from druid_ingest.planning import parse_interval
from druid_ingest.wire import Operation, ProgressSink, SharedRead, call

__all__ = ["DEFAULT_TICK", "LIST_EVERY", "LIST_EVERY_MAX", "LIST_MIN", "LOCK_FILTERS_PER_POST", "SharedPoller"]

#: the shortest interval between two batches (seconds): at most one bulk status call per tick per cluster
DEFAULT_TICK = 1.0
#: how long a batch gathers the queries arriving together before it is sent
_GATHER = 0.02
#: how long first looks gather (waits resuming after a restart start over a few moments, not in one instant)
_FIRST_GATHER = 0.2
#: served-inventory spans closer than this (seconds) are read together
_MERGE_GAP = 86400.0
#: first looks arriving within ``LIST_EVERY`` from which one active-task listing answers them (fewer: one
#: ``GET /status`` each)
LIST_MIN = 10
#: seconds between a herd's first two active-task listings (each lists every active task of the cluster): a herd
#: arriving over several ticks waits for the next listing rather than paying one per tick
LIST_EVERY = 5.0
#: the gap doubles with each listing of one herd up to this (seconds): a herd built over T seconds costs at most
#: 2 + (T - 5) / 10 listings, and a wait arriving during it waits at most this long for its first look (a look
#: that sees a spec Druid failed at once, and a short task's end: seconds matter more than a listing's cost)
LIST_EVERY_MAX = 10.0
#: datasource filters per ``activeLocks`` POST (one filter each; Druid groups them by datasource)
LOCK_FILTERS_PER_POST = 500

Runner = Callable[[Operation[Any]], Awaitable[Any]]


class SharedPoller:
    """Batches the shared reads (``druid_ingest.ops``: StatusQuery, TaskQuery, ServedQuery) of one loop's waits
    per tick.

    ``run`` executes one operation with the shared client (its retry policy and session). ``stats`` counts the
    requests made, by kind (``bulk``, ``status``, ``served``; for first looks ``listing``, ``first`` (a GET each),
    ``locks``, ``history``), the status reads ``answered`` and the tasks given their ``first looks``.
    """

    def __init__(self, run: Runner, tick: float = DEFAULT_TICK, list_every: float = LIST_EVERY,
                 list_every_max: float = LIST_EVERY_MAX) -> None:
        self._run = run
        self.tick = tick
        self.list_every = list_every
        self.list_every_max = list_every_max
        self.bulk_allowed = True
        self.listing_allowed = True
        self.locks_allowed = True
        self.stats: Counter[str] = Counter()
        # a task id's future or follower, or a list of them when two waits ask the same task (``_follow.hold``)
        self._status: dict[str, Held] = {}
        # the status looks due later, by slot, on one loop timer
        self._later: SlotTimer[dict[str, Held]] = SlotTimer(_no_looks, self._due)
        self._first: dict[str, list[tuple[TaskQuery, asyncio.Future[Any]]]] = {}
        self._served: dict[str, list[tuple[str, asyncio.Future[Any]]]] = {}
        self._served_tickers: dict[str, asyncio.Task[None]] = {}
        self._served_at: dict[str, float] = {}  # per datasource, when its last served read went out
        self._ticker: asyncio.Task[None] | None = None
        self._first_ticker: asyncio.Task[None] | None = None
        self._sent_at = float("-inf")
        self._listed_at = float("-inf")
        self._list_gap = list_every  # the wait before the herd's next listing: doubles per listing up to the max
        self._alone_since = float("-inf")  # first looks answered one GET each since then (within ``list_every``)
        self._alone = 0

    def answer(self, query: SharedRead) -> Awaitable[Any]:
        """The answer to ``query``, to await: its future itself (no coroutine of its own, which each of a
        triggerer's thousands of waits would keep until its batch is sent). A cancelled wait cancels only its own
        future; the batch skips it."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if isinstance(query, StatusQuery):
            self._file(loop, query, future)
            return future
        if isinstance(query, TaskQuery):  # first looks keep their own pace: not held back by the status tick
            self._first.setdefault(query.task_id, []).append((query, future))
            if self._first_ticker is None or self._first_ticker.done():
                self._first_ticker = loop.create_task(self._tick_first())
            return future
        if not isinstance(query, ServedQuery):  # pragma: no cover - a new SharedRead the poller does not batch
            return self._run(direct(query))
        self._served.setdefault(query.datasource, []).append((query.span, future))
        if query.datasource not in self._served_tickers:  # else: its ticker sends it with the others
            self._served_tickers[query.datasource] = loop.create_task(self._tick_served(query.datasource))
        return future

    def follow(self, op: Operation[Any], query: StatusQuery, on_progress: ProgressSink | None,
               ) -> asyncio.Future[tuple[bool, Any]]:
        """Answer ``query``, the look ``op`` just yielded, and step ``op`` on from there as long as it only looks
        (``_follow.step``). The calling task awaits the future: ``(False, action)`` for the first other action,
        ``(True, value)`` when ``op`` returned; it raises what ``op`` raised. Cancelling it drops the wait."""
        wait = follower(op, on_progress)
        self._file(asyncio.get_running_loop(), query, wait)
        return wait[3]

    def _file(self, loop: asyncio.AbstractEventLoop, query: StatusQuery, item: Any) -> None:
        """A status look into the next batch, or, due later, into its slot (no timer or sleep of its own)."""
        if query.after > 0:
            hold(self._later.slot(loop, query.after), query.task_id, item)
            return
        hold(self._status, query.task_id, item)
        if self._ticker is None or self._ticker.done():
            self._ticker = loop.create_task(self._tick())

    def _due(self, looks: dict[str, Held]) -> None:
        """A slot's looks, now due, join the next batch (a future a wait cancelled meanwhile is skipped there)."""
        for task_id, held in looks.items():
            for wait in futures_of(held):
                hold(self._status, task_id, wait)
        if self._status and (self._ticker is None or self._ticker.done()):
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    @property
    def waiting(self) -> int:
        return (sum(len(futures_of(f)) for d in (self._status, *self._later.held()) for f in d.values())
                + sum(len(f) for d in (self._first, self._served) for f in d.values()))

    async def close(self) -> None:
        """Stop the tickers. Looks filed for later still go out when due (as a wait's own sleep used to end in a
        look): the loop's one timer for them is left to run."""
        for ticker in (self._ticker, self._first_ticker, *self._served_tickers.values()):
            if ticker is not None and not ticker.done():
                ticker.cancel()
                await asyncio.gather(ticker, return_exceptions=True)

    async def _tick(self) -> None:
        """Send what is waiting: after a short gathering window, and never sooner than ``tick`` after the last
        batch, so a lone wait is answered at once and a thousand waits cost one call per tick."""
        loop = asyncio.get_running_loop()
        while self._status:
            await asyncio.sleep(max(_GATHER, self._sent_at + self.tick - loop.time()))
            self._sent_at = loop.time()
            statuses, self._status = self._status, {}
            await self._answer_statuses(statuses)

    async def _tick_served(self, datasource: str) -> None:
        """Send the datasource's served reads: after a short gathering window, and never sooner than ``tick``
        after its last one (a thousand gate looks at one datasource cost one read per tick); not after the next
        status batch, which has nothing to share with them."""
        loop = asyncio.get_running_loop()
        try:
            while datasource in self._served:
                last = self._served_at.get(datasource, float("-inf"))
                await asyncio.sleep(max(_GATHER, last + self.tick - loop.time()))
                self._served_at[datasource] = loop.time()
                await self._answer_served(datasource, self._served.pop(datasource))
        finally:
            self._served_tickers.pop(datasource, None)

    async def _tick_first(self) -> None:
        """First looks after a short gathering window; a herd's no sooner than the gap after the last listing.

        A herd is ``LIST_MIN`` first looks within ``list_every`` (in one window, or a trickle answered one GET
        each until then), or any first look while the herd's last listing is recent: it waits for the next
        listing, so a herd costs a listing per gap whatever its rate, not a GET each. The gap doubles per listing
        up to ``list_every_max`` (a runner building triggers for minutes costs six listings a minute, and a late
        wait's first look waits at most that), and starts again at ``list_every`` once the herd is over."""
        loop = asyncio.get_running_loop()
        while self._first:
            now = loop.time()
            if now - self._alone_since > self.list_every:
                self._alone_since, self._alone = now, 0
            herd = self.listing_allowed and (
                len(self._first) + self._alone >= LIST_MIN or now < self._listed_at + self._list_gap
                + self.list_every_max)
            await asyncio.sleep(max(_FIRST_GATHER, self._listed_at + self._list_gap - now) if herd else _FIRST_GATHER)
            first, self._first = self._first, {}
            listing = self.listing_allowed and len(first) + self._alone >= LIST_MIN
            self._alone = 0 if listing else self._alone + len(first)
            await self._answer_first(first, listing)

    async def _answer_statuses(self, waiting: dict[str, Held]) -> None:
        ids = [task_id for task_id, held in waiting.items() if not all(is_gone(w) for w in futures_of(held))]
        if not ids:
            return
        try:
            found: dict[str, TaskStatus | ep.StatusRow] | None = await self._statuses(ids)
            error: DruidError | None = None
        except DruidError as exc:
            found, error = None, exc
        if found is not None:
            self.stats["answered"] += sum(len(futures_of(held)) for held in waiting.values())
        loop = asyncio.get_running_loop()
        for task_id, held in waiting.items():
            status = found.get(task_id) if found is not None else None
            if type(status) is tuple:  # made only now, and dropped after this task's waits unless one keeps it
                status = TaskStatus(*status)
            gone = UnknownTaskError(task_id) if found is not None and status is None else error
            for wait in futures_of(held):
                if not isinstance(wait, tuple):
                    settle(wait, value=status, error=gone)
                elif (query := step(wait, status, gone)) is not None:
                    self._file(loop, query, wait)

    async def _statuses(self, ids: list[str]) -> dict[str, TaskStatus | ep.StatusRow]:
        """Each id's status: a bulk answer's as rows (``ep.StatusRow``: thousands of statuses held across the tick
        that the collector does not track), the per-task fallback's as statuses."""
        if self.bulk_allowed:
            try:
                self.stats["bulk"] += 1
                rows: dict[str, TaskStatus | ep.StatusRow] = await self._run(
                    call(ep.bulk_status(ids), ep.parse_bulk_rows))
                return rows
            except (DruidAuthError, DruidNotFoundError, DruidValidationError):
                self.bulk_allowed = False  # refused: per-task GETs from now on
        self.stats["status"] += len(ids)
        answers = await asyncio.gather(*(self._run(direct(StatusQuery(i))) for i in ids), return_exceptions=True)
        out: dict[str, TaskStatus | ep.StatusRow] = {}
        for task_id, answer in zip(ids, answers, strict=True):
            if isinstance(answer, TaskStatus):
                out[task_id] = answer
            elif isinstance(answer, DruidError) and not isinstance(answer, UnknownTaskError):
                raise answer
        return out

    async def _answer_first(self, waiting: dict[str, list[tuple[TaskQuery, asyncio.Future[Any]]]],
                            listing: bool) -> None:
        """First looks, in one go: the statuses (one active-task listing for a herd, one ``GET /status`` for each
        task it does not list and for a few waits), then the lock ceilings (one ``activeLocks`` POST), then the
        histories the waits' memories lack (one read per datasource and task type)."""
        live = {i: wanted for i, wanted in waiting.items() if any(not f.done() for _, f in wanted)}
        if not live:
            return
        found: dict[str, TaskStatus | DruidError] = {}
        try:
            found.update(await self._listed(list(live)) if listing else {})
        except DruidError as exc:
            for wanted in live.values():
                settle([f for _, f in wanted], error=exc)
            return
        missing = [i for i in live if i not in found]
        answers = await asyncio.gather(*(self._one_status(i) for i in missing))
        found.update(zip(missing, answers, strict=True))
        statuses = {i: s for i, s in found.items() if isinstance(s, TaskStatus)}
        ceilings = await self._ceilings([s for i, s in statuses.items()
                                         if holds_lock(s) and all(q.ceiling is None for q, _ in live[i])])
        await self._histories({(q.memory, s.datasource, s.task_type) for i, s in statuses.items()
                               for q, _ in live[i] if q.memory is not None and s.datasource and s.task_type})
        self.stats["first looks"] += len(live)
        for task_id, wanted in live.items():
            answer = found[task_id]
            for query, future in wanted:
                if isinstance(answer, DruidError):
                    settle([future], error=answer)
                    continue
                ceiling = query.ceiling or ceilings.get(task_id)
                settle([future], value=replace(answer, version_ceiling=ceiling) if ceiling else answer)

    async def _listed(self, ids: list[str]) -> dict[str, TaskStatus]:
        """The active tasks among ``ids`` from one listing, for a herd; the next listing of the same herd comes
        twice as long after (up to ``list_every_max``), of a new herd ``list_every`` after."""
        now = asyncio.get_running_loop().time()
        going_on = now < self._listed_at + self._list_gap + self.list_every_max
        self._list_gap = min(2 * self._list_gap, self.list_every_max) if going_on else self.list_every
        self._listed_at = now
        try:
            self.stats["listing"] += 1
            tasks: dict[str, TaskStatus] = await self._run(call(ep.active_tasks(), ep.parse_tasks_among(set(ids))))
        except (DruidAuthError, DruidNotFoundError, DruidValidationError):
            self.listing_allowed = False  # refused: one GET each from now on
            return {}
        # a listed task the runner does not have yet shows no runner state: /status calls that WAITING
        return {i: t if t.runner_state or t.is_terminal else replace(t, runner_state="WAITING")
                for i, t in tasks.items()}

    async def _one_status(self, task_id: str) -> TaskStatus | DruidError:
        try:
            self.stats["first"] += 1
            status: TaskStatus = await self._run(call(ep.status(task_id), ep.parse_status))
            return status
        except DruidError as exc:
            return exc

    async def _ceilings(self, holding: list[TaskStatus]) -> dict[str, str | None]:
        """Lock ceilings of the tasks ``holding`` their locks: one ``activeLocks`` POST per
        ``LOCK_FILTERS_PER_POST`` datasources; where refused (and remembered), the listed queue time."""
        out: dict[str, str | None] = {}
        datasources = sorted({s.datasource for s in holding if s.datasource})
        by_ds: dict[str, list[Any]] = {ds: [] for ds in datasources}
        failed: set[str] = set()
        groups = {s.group_id or s.task_id for s in holding}  # the answer is read keeping only these
        for first in range(0, len(datasources), LOCK_FILTERS_PER_POST):
            chunk = datasources[first:first + LOCK_FILTERS_PER_POST]
            if not self.locks_allowed:
                continue
            try:
                self.stats["locks"] += 1
                for lock in await self._run(call(ep.active_locks_of(chunk), ep.parse_active_locks_among(groups))):
                    by_ds.setdefault(lock.datasource, []).append(lock)
            except (DruidAuthError, DruidNotFoundError, DruidValidationError):
                self.locks_allowed = False  # refused: the runner's queue time from now on
            except DruidError:
                failed.update(chunk)  # optional: no ceiling, as ``operations.lock_ceiling`` gives none
        fallback = [s for s in holding if not self.locks_allowed and s.datasource]
        answers = await asyncio.gather(*(self._run(listed_ceiling(s)) for s in fallback), return_exceptions=True)
        out.update({s.task_id: a if isinstance(a, str) else None for s, a in zip(fallback, answers, strict=True)})
        for status in holding:
            if status.task_id not in out and status.datasource and status.datasource not in failed:
                out[status.task_id] = ceiling_from_locks(status, by_ds.get(status.datasource, []))
        return out

    async def _histories(self, wanted: set[tuple[WaitMemory | None, str | None, str | None]]) -> None:
        """The histories the waits' memories lack: one read of the newest completed tasks for a memory's
        datasources (``ops.many_histories``), then one read per datasource and task type it left unsettled
        (``ops.task_history``). Each fills the memory, where each wait then finds it."""
        keys: dict[WaitMemory, list[tuple[str, str]]] = {}
        for memory, ds, kind in wanted:
            if memory is not None and ds and kind and not memory.durations.get((memory.cluster, ds, kind))[0]:
                keys.setdefault(memory, []).append((ds, kind))
        answers = await asyncio.gather(*(self._run(many_histories(m.cluster, of, m.durations))
                                         for m, of in keys.items()), return_exceptions=True)  # never fails a look
        for memory, answer in zip(list(keys), answers, strict=True):
            keys[memory], read = answer if isinstance(answer, tuple) else (keys[memory], True)
            self.stats["history"] += read
        missing = [(memory, ds, kind) for memory, of in keys.items() for ds, kind in of]
        self.stats["history"] += len(missing)
        await asyncio.gather(*(self._run(task_history(m.cluster, ds, kind, m.durations)) for m, ds, kind in missing),
                             return_exceptions=True)

    async def _answer_served(self, datasource: str, wanted: list[tuple[str, asyncio.Future[Any]]]) -> None:
        live = [(span, f) for span, f in wanted if not f.done()]
        for span, futures in _merge_spans(live):
            try:
                self.stats["served"] += 1
                ids = await self._run(direct(ServedQuery(datasource, span)))
            except DruidError as exc:
                settle(futures, error=exc)
                continue
            settle(futures, value=ids)


def _no_looks(loop: asyncio.AbstractEventLoop) -> dict[str, Held]:
    return {}


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
