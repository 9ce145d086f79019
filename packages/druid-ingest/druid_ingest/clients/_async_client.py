"""The asynchronous transport (aiohttp) and :class:`AsyncDruidClient`, for triggers and async code.

Mirror of ``sync_client``: same operations, same exchange loop; only ``await`` differs. One
``aiohttp.ClientSession`` per client; open it with ``async with AsyncDruidClient(...)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import ssl
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import aiohttp

from druid_ingest.clients._endpoint_calls import AsyncMode
from druid_ingest.clients._facade import ClientFacade
from druid_ingest.clients._poller import DEFAULT_TICK, SharedPoller
from druid_ingest.clients._slot_timer import SlotTimer
from druid_ingest.errors import DruidError
from druid_ingest.ops import StatusQuery, direct
from druid_ingest.wire import (
    ClusterConfig,
    Exchange,
    HttpCall,
    Operation,
    Progress,
    ProgressSink,
    Request,
    Response,
    RetryPolicy,
    SharedRead,
    Sleep,
    exchange,
    load_client_cert,
    read_timeout,
    request_headers,
    ssl_reason,
    transport_error,
)

__all__ = ["AiohttpTransport", "AsyncDruidClient", "T", "drive_exchange", "shared_client"]

T = TypeVar("T")


def _ssl_context(config: ClusterConfig) -> ssl.SSLContext | bool:
    """Built when the client is built: loading certificates reads files, which must not happen on a busy loop."""
    if not config.verify and not config.client_cert:
        return False
    urls = (config.url, config.overlord_url, config.coordinator_url, config.broker_url)
    if not (config.ca_bundle or config.client_cert or any((u or "").startswith("https:") for u in urls)):
        return True
    context = ssl.create_default_context(cafile=config.ca_bundle if config.verify else None)
    if not config.verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if config.client_cert:
        load_client_cert(context, config.client_cert, config.client_key)
    return context


def _os_reason(error: OSError) -> str:
    """``[Errno 111] Connection refused`` from aiohttp's OSError (its strerror is "Connect call failed (...)")."""
    if isinstance(error, socket.gaierror) or not error.errno:
        return f"[Errno {error.errno}] {error.strerror}" if error.strerror else str(error)
    return f"[Errno {error.errno}] {os.strerror(error.errno)}"


class AiohttpTransport:
    """Performs one :class:`HttpCall` with an aiohttp session (created lazily inside the running loop).

    Constructing it does the blocking part (the TLS context), so a trigger can build it in a thread."""

    def __init__(self, config: ClusterConfig) -> None:
        self.config = config
        self._ssl = _ssl_context(config)
        self._session: aiohttp.ClientSession | None = None

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            cfg = self.config
            timeout = aiohttp.ClientTimeout(sock_connect=cfg.connect_timeout, sock_read=cfg.read_timeout)
            self._session = aiohttp.ClientSession(
                timeout=timeout,
                trust_env=cfg.trust_env,
                connector=aiohttp.TCPConnector(ssl=self._ssl),
            )
        return self._session

    async def perform(self, hc: HttpCall) -> Response:
        headers = request_headers(hc, self.config)
        try:
            extra: dict[str, Any] = {"proxy": self.config.proxy} if self.config.proxy else {}
            if hc.read_timeout is not None:
                extra["timeout"] = aiohttp.ClientTimeout(
                    sock_connect=self.config.connect_timeout,
                    sock_read=read_timeout(self.config.read_timeout, hc.read_timeout),
                )
            started = time.monotonic()
            async with self._get_session().request(
                hc.method, hc.url, data=hc.body, headers=headers, allow_redirects=False, **extra
            ) as resp:
                body = await resp.read()
                sent = "Authorization" in headers
                scheme = headers.get("Authorization", "Basic").split(" ", 1)[0]
                return Response(resp.status, body, dict(resp.headers), hc.url, hc.method, sent_auth=sent,
                                auth_scheme=scheme, elapsed=time.monotonic() - started,
                                via_proxy=self.config.forwarding_proxy(hc.url))
        except (aiohttp.ClientConnectorCertificateError, aiohttp.ClientSSLError) as exc:
            raise transport_error("tls", ssl_reason(exc), hc.method, hc.url) from None
        except asyncio.TimeoutError:
            raise transport_error("timeout", "", hc.method, hc.url) from None
        except aiohttp.ClientConnectorError as exc:
            via = self.config.proxy if isinstance(exc, aiohttp.ClientProxyConnectionError) else None
            raise transport_error("connect", _os_reason(exc.os_error), hc.method, hc.url, via) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
            # a TLS server that wants a client certificate hangs up (disconnect) or resets the connection
            raise transport_error("connect", f"{type(exc).__name__}: {exc}", hc.method, hc.url,
                                  client_cert=bool(self.config.client_cert)) from None
        except aiohttp.ClientHttpProxyError as exc:  # the proxy answered the CONNECT with an error status
            raise transport_error("proxy", f"{exc.status} {exc.message}".strip(), hc.method, hc.url,
                                  self.config.proxy) from None
        except aiohttp.ClientError as exc:
            raise transport_error("other", type(exc).__name__, hc.method, hc.url) from None

    async def close(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()


async def drive_exchange(ex: Exchange, transport: AiohttpTransport) -> Response:
    reply: Response | DruidError | None = None
    try:
        while True:
            action = ex.send(reply)
            if isinstance(action, Sleep):
                await asyncio.sleep(action.seconds)
                reply = None
            else:
                try:
                    reply = await transport.perform(action)
                except DruidError as exc:
                    reply = exc
    except StopIteration as stop:
        response: Response = stop.value
        return response


class _Wake(asyncio.Future[None]):
    """One sleep slot's future (``SlotTimer``), shared by every wait sleeping to it. A task cancelled while
    awaiting it would cancel it for all; here cancelling wakes the slot early instead (returning False, so the
    task raises its own CancelledError once woken) and the other waits, seeing ``early``, sleep again for what is
    left."""

    early = False

    def cancel(self, msg: Any = None) -> bool:
        if not self.done():
            self.early = True
            self.set_result(None)
        return False


def _new_wake(loop: asyncio.AbstractEventLoop) -> _Wake:
    return _Wake(loop=loop)


def _wake(woken: _Wake) -> None:
    if not woken.done():
        woken.set_result(None)


#: event loop -> its waits' sleeps, one future per slot (a sleeping wait costs its place in its slot's callbacks)
_SLEEPS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SlotTimer[_Wake]] = weakref.WeakKeyDictionary()


def _sleep(seconds: float) -> _Wake:
    """The future of the sleep slot ``seconds`` from now, which the loop resolves then."""
    loop = asyncio.get_running_loop()
    sleeps = _SLEEPS.get(loop)
    if sleeps is None:
        sleeps = _SLEEPS[loop] = SlotTimer(_new_wake, _wake, _Wake.done)
    return sleeps.slot(loop, seconds)


class AsyncDruidClient(ClientFacade[AsyncMode]):
    """Asynchronous Druid client: every :class:`ClientFacade` method returns an awaitable.

    With ``shared=True`` its waits' status and served-inventory reads go through a :class:`SharedPoller` (one
    bulk status call per tick for every wait using this client); :func:`shared_client` hands out one such
    client per event loop and cluster.
    """

    def __init__(self, config: ClusterConfig, retry: RetryPolicy | None = None, *, shared: bool = False,
                 tick: float = DEFAULT_TICK) -> None:
        super().__init__(config, retry)
        self.transport = AiohttpTransport(config)
        self.poller = SharedPoller(self._run_direct, tick) if shared else None

    def _run(self, op: Operation[Any], on_progress: ProgressSink | None = None) -> Any:
        return self._drive(op, on_progress, self.poller)

    def _run_direct(self, op: Operation[Any]) -> Any:
        return self._drive(op, None, None)

    async def _drive(self, op: Operation[T], on_progress: ProgressSink | None, poller: SharedPoller | None) -> T:
        """Run an operation to its value, throwing request errors back into it and handing Progress items to
        ``on_progress``; its shared reads go to ``poller`` (None: each its own request). A method, its transport,
        config and policy read from the client: a triggerer keeps one of these frames per deferred wait, for the
        whole wait, so each local costs ten thousand slots."""
        reply: Any = None
        error: DruidError | None = None
        action: Request | Sleep | Progress | SharedRead | None = None
        pending: Awaitable[Any] | None
        try:
            while True:
                if action is None:  # else: the action the poller handed back
                    action = op.throw(error) if error is not None else op.send(reply)
                error, reply, pending = None, None, None
                if poller is not None and isinstance(action, StatusQuery):
                    # a status look: the poller steps the wait from look to look (``SharedPoller.follow``), and
                    # this task wakes once the wait wants anything else, not at each look
                    pending = poller.follow(op, action, on_progress)
                    action = None
                    done, action = await pending
                    if done:
                        return cast(T, action)
                    continue
                if isinstance(action, Sleep) and action.seconds > 0:
                    # ``asyncio.sleep`` without its coroutine, whose frame a triggerer would keep for each of its
                    # thousands of sleeping waits, nor a timer of its own: a future the loop's one timer for
                    # every wait's sleep resolves (``_sleep``)
                    until = asyncio.get_running_loop().time() + action.seconds
                    woken = _sleep(action.seconds)
                    action = None  # the Sleep (and its float) is not kept while the timer runs
                    await woken
                    while woken.early and until > (now := asyncio.get_running_loop().time()):
                        woken = _sleep(until - now)  # another wait's cancel woke the slot early
                        await woken
                elif isinstance(action, Sleep):
                    await asyncio.sleep(0)
                elif isinstance(action, Progress):
                    if on_progress is not None:
                        on_progress(action.item)
                elif isinstance(action, SharedRead):
                    try:
                        if poller is not None:
                            pending = poller.answer(action)
                            action = None  # the query is not kept while its answer is awaited
                            reply = await pending
                        else:
                            reply = await self._drive(direct(action), None, None)
                    except DruidError as exc:
                        error = exc
                elif isinstance(action, Request):
                    try:
                        reply = await drive_exchange(exchange(action, self.config, self.retry), self.transport)
                    except DruidError as exc:
                        error = exc
                action = None
        except StopIteration as stop:
            return cast(T, stop.value)

    async def close(self) -> None:
        if self.poller is not None:
            await self.poller.close()
        await self.transport.close()

    async def __aenter__(self) -> AsyncDruidClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _Shared:
    """The loop's one client for a cluster, how many hold it, and where it is filed (to unfile it)."""

    __slots__ = ("client", "clients", "key", "users")

    def __init__(self, client: AsyncDruidClient, clients: dict[Any, _Shared], key: Any) -> None:
        self.client = client
        self.clients = clients
        self.key = key
        self.users = 0


#: event loop -> (cluster config, retry policy) -> the one shared client of that loop for that cluster
_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[ClusterConfig, RetryPolicy], _Shared]] = (
    weakref.WeakKeyDictionary()
)


class _Lease:
    """One user's hold on the shared client, entered with ``async with`` (:func:`shared_client`).

    A small object rather than an async generator: a triggerer holds one per wait for the wait's whole life, and
    a suspended generator (its frame, its entry in the loop's async-generator set) costs several times more.
    Once entered it keeps only the entry; the caller's config and ``make`` are dropped."""

    __slots__ = ("_config", "_entry", "_make", "_retry")

    def __init__(self, config: ClusterConfig, retry: RetryPolicy | None,
                 make: Callable[[], Awaitable[AsyncDruidClient]] | None) -> None:
        self._config: ClusterConfig | None = config
        self._retry = retry
        self._make = make
        self._entry: _Shared | None = None

    async def __aenter__(self) -> AsyncDruidClient:
        config, retry, make = self._config, self._retry, self._make
        if config is None:
            raise RuntimeError("a shared_client() lease is entered once")
        self._config = self._retry = self._make = None
        key = (config, retry or RetryPolicy())
        clients = _SHARED.setdefault(asyncio.get_running_loop(), {})
        entry = clients.get(key)
        if entry is None:
            client = await make() if make is not None else AsyncDruidClient(config, retry, shared=True)
            entry = clients.setdefault(key, _Shared(client, clients, key))
            if entry.client is not client:
                await client.close()
        entry.users += 1
        self._entry = entry
        return entry.client

    async def __aexit__(self, *exc: object) -> None:
        entry, self._entry = self._entry, None
        if entry is None:
            return
        entry.users -= 1
        if entry.users == 0 and entry.clients.get(entry.key) is entry:
            del entry.clients[entry.key]
            await entry.client.close()


def shared_client(
    config: ClusterConfig, retry: RetryPolicy | None = None, *,
    make: Callable[[], Awaitable[AsyncDruidClient]] | None = None,
) -> contextlib.AbstractAsyncContextManager[AsyncDruidClient]:
    """The event loop's one client for this cluster (one aiohttp session, one poller), for as long as any user
    holds it; closed when the last one leaves. ``make`` builds it, only when none exists (e.g. in a thread:
    ``lambda: asyncio.to_thread(...)``), so the waits that find one build nothing. Use with ``async with``."""
    return _Lease(config, retry, make)
