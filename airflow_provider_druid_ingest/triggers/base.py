"""What every Druid trigger shares: the connection, an absolute deadline, the poll schedule, the retry policy.

Triggers only *watch existing Druid work*: none ever submits, so a triggerer restart (which rebuilds the trigger
from :meth:`serialize` and runs :meth:`run` from the start) just resumes watching, against the same absolute
deadline. A trigger's ``run`` drives one core wait (``core/waits.py``) with the async client and yields its
outcome's ``to_dict()`` as the one event; it has no poll loop of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog
from airflow.triggers.base import BaseTrigger, TriggerEvent
from druid_ingest.ops import PollSchedule
from druid_ingest.wire import RetryPolicy

from airflow_provider_druid_ingest.hooks.druid import DruidHook

if TYPE_CHECKING:
    from druid_ingest.clients import AsyncDruidClient
    from druid_ingest.wire import ClusterConfig

__all__ = ["DEFAULT_WAIT", "DruidWaitTrigger", "cluster_client"]

DEFAULT_WAIT = 7 * 24 * 3600.0
#: the fewest seconds between a wait's start and its event. Airflow 3.3.2's scheduler fails a resumed task when the
#: executor's "success" from the worker's exit at ``defer()`` is drained only after the trigger's event re-queued
#: it (``_process_executor_events`` lets the stale event pass only while the task is SCHEDULED; apache/airflow
#: #66374, #72716). An event that comes seconds after the deferral, under load, hits it: held this long, the
#: scheduler has drained the exit first. Druid work takes longer than this, so it costs only the quickest waits.
RESUME_SETTLE = 5.0


class DruidWaitTrigger(BaseTrigger):
    """Base of the Druid triggers (not used directly).

    :param conn_id: the ``druid_cluster`` connection id (never credentials: trigger kwargs are stored)
    :param end_time: epoch seconds after which the wait ends with a ``timeout`` event
    :param poll_interval: first delay between polls (seconds), growing by ``poll_multiplier``
    :param max_poll_interval: cap of the delay between polls
    :param detect_within: the task wait's detection-latency target, seconds (None: none; ``PollSchedule``)
    :param check_every: the task wait's longest silence before the usual end, seconds (None: none; ``PollSchedule``)
    :param retry: ``RetryPolicy.to_dict()`` for each HTTP call (None: the core's default policy)
    """

    #: seconds the event is held after the wait started (:data:`RESUME_SETTLE`; tests of in-process runs set 0)
    resume_settle: float = RESUME_SETTLE

    def __init__(
        self,
        *,
        conn_id: str = DruidHook.default_conn_name,
        end_time: float | None = None,
        poll_interval: float = 5.0,
        max_poll_interval: float = 60.0,
        poll_multiplier: float = 1.5,
        retry: dict[str, Any] | None = None,
        detect_within: float | None = None,
        check_every: float | None = 600.0,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow's BaseTrigger is untyped
        self.conn_id = conn_id
        self.end_time = float(end_time) if end_time is not None else time.time() + DEFAULT_WAIT
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self.poll_multiplier = float(poll_multiplier)
        self.retry = dict(retry) if retry else None
        self.detect_within = detect_within
        self.check_every = check_every
        self.schedule  # noqa: B018 - a bad target fails here, not in the triggerer's event loop later

    def _common_kwargs(self) -> dict[str, Any]:
        return {
            "conn_id": self.conn_id,
            "end_time": self.end_time,
            "poll_interval": self.poll_interval,
            "max_poll_interval": self.max_poll_interval,
            "poll_multiplier": self.poll_multiplier,
            "retry": self.retry,
            "detect_within": self.detect_within,
            "check_every": self.check_every,
        }

    def _classpath(self) -> str:
        return f"{type(self).__module__}.{type(self).__qualname__}"

    @property
    def schedule(self) -> PollSchedule:
        return _schedule(self.poll_interval, self.max_poll_interval, self.poll_multiplier, self.detect_within,
                         self.check_every)

    def _client(self) -> contextlib.AbstractAsyncContextManager[AsyncDruidClient]:
        """The event loop's shared client for this cluster: one aiohttp session and one poller for every Druid
        trigger of the triggerer, so their status reads become one bulk call per tick (``core/poller.py``). Use
        with ``async with`` (:class:`_SharedClient`)."""
        return cluster_client(self.conn_id, self.retry)

    def _log_shared_reads(self, client: AsyncDruidClient) -> None:
        """What this triggerer's shared poller has done so far (how many waits one bulk call served)."""
        stats = client.poller.stats if client.poller is not None else None
        if stats:
            self.log.info(
                "Shared Druid reads on this triggerer so far: %d bulk status call(s) answering %d status read(s), "
                "%d single status GET(s), %d served-inventory read(s)",
                stats["bulk"], stats["answered"], stats["status"], stats["served"],
            )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        """The one event: the core wait's outcome as primitives (``_event``); never raises (an error is an outcome,
        ``_errored``). The wait runs in this one frame: no coroutine between Airflow's ``run`` and the core's
        driver, and no ``async with`` (which keeps a bound ``__aexit__`` on the frame), since a triggerer holds one
        such chain per deferred wait for the whole wait."""
        started = time.monotonic()
        try:
            lease = await _shared_lease(self.conn_id, self.retry)  # the core's lease itself: no holder around it
            client = await lease.__aenter__()
            try:
                outcome = await self._wait(client)
                self._log_shared_reads(client)
            finally:
                await lease.__aexit__(None, None, None)
        except Exception as exc:  # one "error" event, never a raise: the task decides what to do
            outcome = self._errored(exc)
        early = self.resume_settle - (time.monotonic() - started)
        if early > 0:
            await asyncio.sleep(early)  # RESUME_SETTLE: the scheduler drains the deferral's exit before the event
        yield TriggerEvent(self._event(outcome))  # type: ignore[no-untyped-call]

    def _wait(self, client: AsyncDruidClient) -> Awaitable[Any]:  # pragma: no cover - overridden
        """The core wait's coroutine (its outcome has ``to_dict()``, unless ``_event`` says otherwise)."""
        raise NotImplementedError

    def _errored(self, exc: Exception) -> Any:  # pragma: no cover - overridden
        """The outcome of a wait that raised ``exc``."""
        raise NotImplementedError

    def _event(self, outcome: Any) -> dict[str, Any]:
        """The event payload of an outcome."""
        return outcome.to_dict()  # type: ignore[no-any-return]


@functools.cache
def progress_log(cls: type[BaseTrigger]) -> Callable[[str], None]:
    """``cls``'s ``log.info`` for a wait's progress lines, one function per trigger class, logging to the same
    logger as ``self.log`` (Airflow's name for the class; the triggerer routes a line to its trigger by the running
    task's log context, not by the logger object). ``self.log.info`` would bind a logger and keep it on each
    trigger for the whole wait (structlog caches it on first use, ~650 B): a triggerer holds thousands of waits."""
    name = cls._create_logger_name(logged_class=cls, log_config_logger_name=cls._log_config_logger_name,
                                   class_logger_name=cls._logger_name)

    def info(line: str) -> None:
        structlog.get_logger(name).info(line)

    return info


def no_progress(item: object) -> None:
    """The progress sink of a wait that logs none (``log_progress=False``)."""


@functools.lru_cache(maxsize=64, typed=True)
def _schedule(initial: float, max_delay: float, multiplier: float, detect_within: float | None,
              check_every: float | None) -> PollSchedule:
    """One (frozen) schedule object for every wait with these values: each wait keeps its schedule for the whole
    wait, and a triggerer's thousands of waits mostly share a few."""
    return PollSchedule(initial, max_delay, multiplier, detect_within, check_every)


def cluster_client(conn_id: str, retry: dict[str, Any] | None) -> contextlib.AbstractAsyncContextManager[
        AsyncDruidClient]:
    """The event loop's shared client for the connection, for ``async with``: every wait and the served watch."""
    return _SharedClient(conn_id, retry)


class _SharedClient:
    """A trigger's hold on the shared client, for ``async with``.

    The client is built in a thread, and only by the wait that finds none: the first one in a triggerer imports
    aiohttp and the core's waits (a quarter of a second or more) and may load TLS certificates; none of that may
    block the event loop that every other trigger shares. A small object rather than an async generator, and
    nothing of the lookup kept once entered (no hook, no config, no unused client): a triggerer holds one of
    these per wait for the whole wait."""

    __slots__ = ("_conn_id", "_lease", "_retry")

    def __init__(self, conn_id: str, retry: dict[str, Any] | None) -> None:
        self._conn_id = conn_id
        self._retry = retry
        self._lease: contextlib.AbstractAsyncContextManager[AsyncDruidClient] | None = None

    async def __aenter__(self) -> AsyncDruidClient:
        lease = await _shared_lease(self._conn_id, self._retry)
        client = await lease.__aenter__()
        self._lease = lease
        return client

    async def __aexit__(self, *exc: Any) -> None:
        lease, self._lease = self._lease, None
        if lease is not None:
            await lease.__aexit__(*exc)


async def _shared_lease(conn_id: str, retry: dict[str, Any] | None) -> contextlib.AbstractAsyncContextManager[
        AsyncDruidClient]:
    """The core's lease (``shared_client``, not entered yet) on the loop's shared client for the connection: the
    connection looked up (:func:`_config`) and, for the first wait, aiohttp and the waits imported in a thread.
    What :meth:`DruidWaitTrigger.run` holds for the whole wait, and :class:`_SharedClient` for ``async with``."""
    config = await _config(conn_id)
    policy = RetryPolicy(**retry) if retry else None
    if "druid_ingest.clients._async_client" not in sys.modules:  # the first wait: aiohttp and the waits
        await asyncio.to_thread(importlib.import_module, "druid_ingest.clients._async_client")
    from druid_ingest.clients import shared_client

    return shared_client(config, policy, make=lambda: asyncio.to_thread(_build_client, config, policy))


#: (event loop, connection id) -> the lookup of that connection under way
_LOOKUPS: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Future[ClusterConfig]] = {}


async def _config(conn_id: str) -> ClusterConfig:
    """The connection's cluster config. A wait that starts while a lookup of the same connection is under way
    awaits that one instead of queueing its own: a triggerer (re)started with thousands of waits would otherwise
    hold thousands of queued lookups at once (~5 KB each: hook, Connection, ``sync_to_async`` state), its peak
    memory. Only a lookup under way is shared; a wait starting later reads the connection again."""
    key = (asyncio.get_running_loop(), conn_id)
    lookup = _LOOKUPS.get(key)
    if lookup is None:
        lookup = asyncio.ensure_future(DruidHook(druid_conn_id=conn_id).aget_config())
        _LOOKUPS[key] = lookup
        lookup.add_done_callback(lambda _: _LOOKUPS.pop(key, None))
    return await asyncio.shield(lookup)  # a cancelled wait does not cancel the others' lookup


def _build_client(config: ClusterConfig, retry: RetryPolicy | None) -> AsyncDruidClient:
    from druid_ingest.clients import AsyncDruidClient
    from druid_ingest.ops import IngestionOutcome, TaskProgress  # noqa: F401 - loads the waits here, off the event loop

    return AsyncDruidClient(config, retry, shared=True)
