"""An ``AssetWatcher`` trigger on what Druid serves: an Asset event once any writer's new data is queryable.

Thin over the core's served-changes watch (``client.served_changes``, docs/watching.md): one look every
``poll_interval`` seconds, one request when nothing changed. It runs as Airflow 3.3's shared stream in *ack
mode*, because only that mode says when an event is stored: the look's cursor is kept in the Asset's state store
(``asset_state_store``, in Airflow's metadata database) only after Airflow confirms the event of that look
persisted (``advance``). So a triggerer killed at any point loses no change: its successor starts from the last
cursor kept and reports again what was not confirmed. The one window for a repeat is a kill between Airflow
storing the event and the cursor being kept (one state sync, a second or two); the event's ``key`` names the
look, so a consumer that must not act twice keys on it.
"""

from __future__ import annotations

import asyncio
import json
import typing
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from airflow.triggers.base import BaseEventTrigger, TriggerEvent
from druid_ingest.errors import DruidError, DruidFatalError, DruidUsageError
from druid_ingest.ops import (
    REPORTED_KINDS,
    WATCH_EVERY,
    ChangeBatch,
    ChangeKind,
    WatchCursor,
    next_look,
    watch_window,
)
from druid_ingest.wire import RetryPolicy

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.triggers.base import cluster_client

try:
    from airflow.triggers.shared_stream import AdvanceItem, SharedStreamProducer
except ImportError as exc:  # Airflow 3.2: no ack mode, and without it a restart could lose a change
    raise ImportError("DruidServedTrigger needs Airflow 3.3 or later (the shared stream's ack mode, which tells "
                      "when an event is stored before the watch's cursor moves)") from exc

if TYPE_CHECKING:
    from druid_ingest.clients import AsyncDruidClient

__all__ = ["CURSOR_KEY", "CursorStore", "DruidServedTrigger", "druid_served_asset"]

#: the state-store key of a watch's cursor, per connection, datasource and window (another starts its own)
CURSOR_KEY = "druid_served_cursor:{conn_id}:{datasource}:{window}"

_KINDS: tuple[ChangeKind, ...] = typing.get_args(ChangeKind)


class CursorStore(Protocol):
    """Where the cursor lives between looks: the watched Asset's state store (``AssetStateStoreAccessor``)."""

    async def aget(self, key: str, default: Any = None) -> Any: ...
    async def aset(self, key: str, value: Any) -> None: ...


class DruidServedTrigger(BaseEventTrigger):
    """Fires when what the Broker serves of ``datasource`` in ``window`` changes; for ``AssetWatcher`` only.

    :param datasource: the datasource watched
    :param asset: the name of the Asset this trigger watches for; its state store keeps the cursor
        (``druid_served_asset`` passes it)
    :param window: the ISO interval watched (default all time); choose one on segment boundaries
    :param conn_id: the ``druid_cluster`` connection id
    :param poll_interval: seconds between looks
    :param on: the change kinds that fire (``served``, ``appended``; add ``dropped`` for retention)
    :param from_now: without a kept cursor, the first look records what is served instead of reporting it all
    :param retry: ``RetryPolicy.to_dict()`` for each HTTP call (None: the core's default)
    """

    def __init__(
        self,
        *,
        datasource: str,
        asset: str,
        window: str | None = None,
        conn_id: str = DruidHook.default_conn_name,
        poll_interval: float = WATCH_EVERY,
        on: Sequence[str] = REPORTED_KINDS,
        from_now: bool = False,
        retry: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow's BaseTrigger is untyped
        for field, value in (("datasource", datasource), ("asset", asset), ("conn_id", conn_id)):
            if not isinstance(value, str) or not value.strip():
                raise DruidUsageError(f"DruidServedTrigger {field}={value!r}: expected a non-empty name")
        if isinstance(poll_interval, bool) or not isinstance(poll_interval, (int, float)) or poll_interval < 1:
            raise DruidUsageError(f"DruidServedTrigger poll_interval={poll_interval!r}: expected seconds, 1 or more")
        if isinstance(on, str) or not on or any(kind not in _KINDS for kind in on):
            raise DruidUsageError(f"DruidServedTrigger on={on!r}: expected a list of change kinds among "
                                  f"{', '.join(_KINDS)}")
        self.datasource, self.asset, self.conn_id = datasource, asset, conn_id
        self.window = watch_window(window)  # DruidUsageError naming the window
        self.poll_interval = float(poll_interval)
        self.on: list[ChangeKind] = [kind for kind in _KINDS if kind in on]
        self.from_now = bool(from_now)
        self.retry = dict(retry) if retry else None
        if self.retry:
            RetryPolicy(**self.retry)  # a bad policy fails in the DAG file, not in the triggerer

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return f"{type(self).__module__}.{type(self).__qualname__}", {
            "datasource": self.datasource, "asset": self.asset, "window": self.window, "conn_id": self.conn_id,
            "poll_interval": self.poll_interval, "on": list(self.on), "from_now": self.from_now,
            "retry": self.retry,
        }

    def shared_stream_key(self) -> tuple[Any, ...]:
        """Everything the look and the cursor depend on (not ``on``: each subscriber filters its own)."""
        return ("druid-served", self.conn_id, self.datasource, self.window, self.asset, self.poll_interval,
                self.from_now, json.dumps(self.retry, sort_keys=True))

    @classmethod
    def create_shared_stream_producer(cls, kwargs: dict[str, Any]) -> ServedStream:
        trigger = cls(**kwargs)
        return ServedStream(trigger)

    async def filter_shared_stream(self, shared_stream: AsyncIterator[Any]) -> AsyncIterator[TriggerEvent]:
        """One event per look whose changes include one of ``on``; the others pass without an event."""
        self._check_asset()
        async for batch in shared_stream:
            wanted = typing.cast("ChangeBatch", batch).only(self.on)
            if wanted.changes:
                self.log.info("Druid serves new data of %s: %s", self.datasource,
                              "; ".join(f"{c.kind} {c.interval} ({c.writer})" for c in wanted.changes))
                yield TriggerEvent(wanted.to_dict())  # type: ignore[no-untyped-call]

    def run(self) -> AsyncIterator[TriggerEvent]:
        """Not used: the triggerer runs this trigger through its shared stream (``shared_stream_key``)."""
        raise RuntimeError("DruidServedTrigger runs only as an AssetWatcher's shared stream (Airflow 3.3+)")

    def _check_asset(self) -> None:
        """The cursor is kept with the Asset named ``asset``: it must be the one this trigger watches for."""
        from airflow.sdk import Asset

        try:
            if self.asset_state_store is None:
                raise KeyError(self.asset)
            self.asset_state_store[Asset.ref(name=self.asset)]
        except KeyError:
            raise DruidUsageError(
                f"DruidServedTrigger asset={self.asset!r}: this trigger is not an AssetWatcher of an Asset of that "
                "name, and the watch keeps its cursor in that Asset's state store. Pass the watched Asset's name "
                "(druid_served_asset builds the Asset and its watcher with one name)") from None


class ServedStream(SharedStreamProducer):
    """One watch's looks, and its cursor kept once Airflow has stored the events before it."""

    def __init__(self, trigger: DruidServedTrigger, store: CursorStore | None = None) -> None:
        self.trigger = trigger
        self.key = CURSOR_KEY.format(conn_id=trigger.conn_id, datasource=trigger.datasource, window=trigger.window)
        self._store = store

    @property
    def store(self) -> CursorStore:
        if self._store is None:
            from airflow.sdk.execution_time.context import AssetStateStoreAccessor

            self._store = typing.cast("CursorStore", AssetStateStoreAccessor(name=self.trigger.asset))
        return self._store

    async def open_stream(self) -> AsyncIterator[tuple[Any, Any]]:
        """Yields ``(batch, cursor)`` for each look whose served ids changed, forever; the cursor is kept in
        ``advance``. A look whose ids changed without news is yielded too, so cursors are kept in look order."""
        t = self.trigger
        saved = await self.store.aget(self.key)
        cursor = WatchCursor.from_dict(saved) if saved is not None else None  # malformed: refused, naming the field
        t.log.info("Watching what Druid serves of %s in %s every %gs, %s", t.datasource,
                   "all time" if t.window == watch_window(None) else t.window, t.poll_interval,
                   "from the cursor kept" if cursor else "from now" if t.from_now else "from nothing served")
        async with cluster_client(t.conn_id, t.retry) as client:
            while True:  # the first look (no cursor kept) reports what the core's first_batch says
                batch = await self._look(client, cursor)
                if cursor is None or batch.cursor.served != cursor.served:
                    yield batch, batch.cursor.to_dict()
                    cursor = batch.cursor
                await asyncio.sleep(next_look(batch, t.poll_interval))

    async def _look(self, client: AsyncDruidClient, cursor: WatchCursor | None) -> ChangeBatch:
        """One look; a transient Druid error is retried each ``poll_interval`` (the watch must outlive an outage),
        a fatal one (a wrong cursor, URL or login) ends the stream loudly."""
        t = self.trigger
        while True:
            try:
                return await client.served_changes(t.datasource, t.window, cursor, from_now=t.from_now)
            except DruidFatalError:
                raise
            except DruidError as exc:
                t.log.warning("Druid watch of %s: %s; looking again in %gs", t.datasource, exc, t.poll_interval)
                await asyncio.sleep(t.poll_interval)

    async def advance(self, batch: Sequence[AdvanceItem]) -> None:
        """Keep the cursor of the last look whose events Airflow stored. One not stored (the triggerer could not
        confirm it) ends the stream after keeping those before it: the watch restarts from the cursor kept and
        reports that look again, rather than move past a change nobody was told of."""
        kept = None
        for item in batch:
            if not item.outcome.is_clean:
                break
            kept = item.broker_payload
        if kept is not None:
            await self.store.aset(self.key, kept)
        if kept is not batch[-1].broker_payload:
            raise RuntimeError(f"an event of the Druid watch of {self.trigger.datasource} was not confirmed stored "
                               f"({batch[-1].outcome}); starting again from the last cursor kept, which reports it "
                               "again")


def druid_served_asset(
    name: str,
    *,
    datasource: str,
    window: str | None = None,
    conn_id: str = DruidHook.default_conn_name,
    poll_interval: float = WATCH_EVERY,
    on: Sequence[str] = REPORTED_KINDS,
    from_now: bool = False,
    uri: str | None = None,
) -> Any:
    """An Asset named ``name`` with a ``DruidServedTrigger`` watcher: schedule a DAG on it to run once Druid
    serves new data of ``datasource`` (in ``window``), whoever wrote it. The watch's cursor lives in this Asset's
    state store."""
    from airflow.sdk import Asset, AssetWatcher

    trigger = DruidServedTrigger(datasource=datasource, asset=name, window=window, conn_id=conn_id,
                                 poll_interval=poll_interval, on=on, from_now=from_now)
    watcher = AssetWatcher(name=f"druid_served_{datasource}", trigger=trigger)
    return Asset(name=name, uri=uri or name, watchers=[watcher])
