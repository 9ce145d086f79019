"""The single retry-and-redirect loop, written once as a generator both transports drive.

An *exchange* turns one logical :class:`Request` into a final :class:`Response`. It yields
:class:`HttpCall` (do this HTTP call, send me the Response or the transport's DruidError) and
:class:`Sleep` (wait, send me None) and returns the response the operation should interpret.
Operations are generators too: they yield :class:`Request`, :class:`Sleep` and :class:`Progress` (hand this
item to whoever watches, send me None) and return a value. The sync driver (``sync_client.drive``) runs all
of this with ``requests`` + ``time.sleep``; the async one (``AsyncDruidClient._drive``) with ``aiohttp`` +
``asyncio.sleep``. Nothing here does I/O.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from druid_ingest.errors import DruidError, DruidRedirectError, DruidTimeoutError, retries_exhausted
from druid_ingest.wire._config import ClusterConfig, netloc_of
from druid_ingest.wire._http import MAX_REDIRECTS, Request, Response, classify, redirect_request_url, transient_error
from druid_ingest.wire._retry import RetryPolicy

__all__ = [
    "USER_AGENT", "Exchange", "HttpCall", "Operation", "Progress", "ProgressSink", "SharedRead", "Sleep", "T", "call",
    "exchange", "read_timeout", "request_headers",
]

USER_AGENT = "airflow-provider-druid-ingest"

T = TypeVar("T")


@dataclass(frozen=True)
class HttpCall:
    """One wire call. ``send_auth`` is decided here, once, so neither transport can leak credentials."""

    method: str
    url: str
    body: bytes | None
    send_auth: bool
    #: the request's cap on the read timeout (None: the configured ``read_timeout``)
    read_timeout: float | None = None
    #: the request's own headers (``Request.headers``), sent after the common ones
    headers: tuple[tuple[str, str], ...] = ()


def request_headers(hc: HttpCall, config: ClusterConfig) -> dict[str, str]:
    """The headers of one wire call, built here once so both transports send the same ones: JSON in and out,
    our User-Agent, and ``Authorization`` only when the exchange decided this call may carry it."""
    headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
    if hc.body is not None:
        headers["Content-Type"] = "application/json"
    authorization = config.authorization_header() if hc.send_auth else None
    if authorization is not None:
        headers["Authorization"] = authorization
    for name, value in hc.headers:
        if name.lower() not in ("authorization", "content-type", "accept"):  # never the ones decided here
            headers[name] = value
    return headers


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Progress:
    """Something a wait wants its watcher to see (a poll's status and report); the driver passes ``item`` to
    the caller's ``on_progress`` and carries on. Operations never call back into caller code themselves."""

    item: Any


class SharedRead:
    """A read a driver may answer together with other waits' reads (the batchable queries of the operations:
    a task's state, a datasource's served ids). The vocabulary of the protocol lives here; the queries do not, so
    the protocol imports nothing that speaks a particular endpoint."""

    __slots__ = ()


#: An operation: yields Requests (answered with Responses), Sleeps and Progress items (answered with None), and
#: SharedReads (answered with their value: a driver may batch them across waits).
Operation = Generator["Request | Sleep | Progress | SharedRead", Any, T]
#: What a caller's progress sink receives: the ``item`` of each Progress.
ProgressSink = Callable[[Any], None]
Exchange = Generator["HttpCall | Sleep", "Response | DruidError | None", Response]


def exchange(
    req: Request,
    config: ClusterConfig,
    policy: RetryPolicy,
    clock: Callable[[], float] = time.monotonic,
) -> Exchange:
    """Send ``req``; follow leader redirects; retry transient failures per ``policy``."""
    start = clock()
    url = req.url(config)
    body = req.body_bytes()
    trusted = config.trusted_netlocs()
    has_creds = config.has_credentials
    attempts = 0
    redirects = 0
    while True:
        attempts += 1
        send_auth = has_creds and netloc_of(url) in trusted
        outcome = yield HttpCall(req.method, url, body, send_auth, req.read_timeout, req.headers)
        if isinstance(outcome, Response):
            verdict = classify(outcome)
            if verdict == "ok":
                return outcome
            if verdict == "redirect":
                redirects += 1
                if redirects > MAX_REDIRECTS:
                    raise DruidRedirectError(
                        f"more than {MAX_REDIRECTS} redirects", status=outcome.status, method=req.method, url=url
                    )
                url = redirect_request_url(outcome, config, has_creds)
                attempts -= 1  # following the leader is not a retry
                continue
            error: DruidError = transient_error(outcome)
        elif isinstance(outcome, DruidError):
            error = outcome
        else:  # pragma: no cover - a driver bug
            raise TypeError(f"exchange expected a Response or DruidError, got {outcome!r}")
        elapsed = clock() - start
        if req.read_timeout is not None and isinstance(error, DruidTimeoutError):
            raise error  # a bounded call that timed out: a retry would start another hanging read on the server
        delay = policy.next_delay(error, attempts, elapsed)
        if delay is None:
            if not error.retryable or (attempts == 1 and policy.max_attempts == 1):
                raise error
            raise retries_exhausted(error, attempts, elapsed) from error
        yield Sleep(delay)


def read_timeout(configured: float, cap: float | None) -> float:
    """The read timeout of one call: the configured one, lowered to the request's cap when it has one."""
    return configured if cap is None else min(configured, cap)


def call(req: Request, parse: Callable[[Response, Request], T]) -> Operation[T]:
    """The one-request operation: send ``req``, interpret with ``parse``."""
    resp = yield req
    assert isinstance(resp, Response)
    return parse(resp, req)
