"""The synchronous transport (requests) and :class:`DruidClient`.

Only I/O lives here: the retry/redirect loop is :func:`~.exchange.exchange`, the calls are the shared
operations. Redirects are never followed by requests itself (it would drop or leak the Authorization
header across hosts); the exchange decides and the transport just sends.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import requests

from druid_ingest.clients._endpoint_calls import SyncMode
from druid_ingest.clients._facade import ClientFacade
from druid_ingest.errors import DruidError
from druid_ingest.ops import direct
from druid_ingest.wire import (
    USER_AGENT,
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
    check_client_cert,
    exchange,
    read_timeout,
    request_headers,
    ssl_reason,
    transport_error,
    tunnel_refusal,
)

__all__ = ["USER_AGENT", "DruidClient", "RequestsTransport", "T", "drive", "drive_exchange"]

T = TypeVar("T")


class RequestsTransport:
    """Performs one :class:`HttpCall` with a pooled ``requests.Session``."""

    def __init__(self, config: ClusterConfig, session: requests.Session | None = None) -> None:
        self.config = config
        check_client_cert(config)  # a wrong path or key is a clear error now, not an OSError inside a call
        self.session = session or requests.Session()
        # no ~/.netrc credentials or proxy env sneaking in, unless the config asks for the environment
        self.session.trust_env = config.trust_env
        if config.proxy:
            self.session.proxies = {"http": config.proxy, "https": config.proxy}

    def perform(self, hc: HttpCall) -> Response:
        headers = request_headers(hc, self.config)
        started = time.monotonic()
        try:
            resp = self.session.request(
                hc.method,
                hc.url,
                data=hc.body,
                headers=headers,
                verify=self.config.tls_verify,
                cert=self.config.tls_client_cert,
                timeout=(self.config.connect_timeout, read_timeout(self.config.read_timeout, hc.read_timeout)),
                allow_redirects=False,
            )
        except requests.exceptions.SSLError as exc:
            raise transport_error("tls", ssl_reason(exc), hc.method, hc.url) from None
        except requests.Timeout as exc:
            raise transport_error("timeout", type(exc).__name__, hc.method, hc.url) from None
        except requests.ConnectionError as exc:
            from_proxy = isinstance(exc, requests.exceptions.ProxyError)
            via = self.config.proxy if from_proxy else None
            refused = tunnel_refusal(str(exc)) if from_proxy else None
            if refused is not None:  # the proxy is up and answered the CONNECT with an error status
                raise transport_error("proxy", refused, hc.method, hc.url, via) from None
            raise transport_error("connect", str(exc) or type(exc).__name__, hc.method, hc.url, via,
                                  client_cert=bool(self.config.client_cert)) from None
        sent = "Authorization" in headers
        scheme = headers.get("Authorization", "Basic").split(" ", 1)[0]
        return Response(resp.status_code, resp.content, dict(resp.headers), hc.url, hc.method, sent_auth=sent,
                        auth_scheme=scheme, elapsed=time.monotonic() - started,
                        via_proxy=self.config.forwarding_proxy(hc.url))

    def close(self) -> None:
        self.session.close()


def drive_exchange(
    ex: Exchange, transport: RequestsTransport, sleep: Callable[[float], None] = time.sleep
) -> Response:
    reply: Response | DruidError | None = None
    try:
        while True:
            action = ex.send(reply)
            if isinstance(action, Sleep):
                sleep(action.seconds)
                reply = None
            else:
                try:
                    reply = transport.perform(action)
                except DruidError as exc:
                    reply = exc
    except StopIteration as stop:
        response: Response = stop.value
        return response


def drive(
    op: Operation[T],
    transport: RequestsTransport,
    config: ClusterConfig,
    policy: RetryPolicy,
    on_progress: ProgressSink | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run an operation to its value, throwing request errors back into it and handing Progress items to
    ``on_progress``."""
    reply: Any = None
    error: DruidError | None = None
    try:
        while True:
            action = op.throw(error) if error is not None else op.send(reply)
            error, reply = None, None
            if isinstance(action, Sleep):
                sleep(action.seconds)
            elif isinstance(action, Progress):
                if on_progress is not None:
                    on_progress(action.item)
            elif isinstance(action, SharedRead):
                try:
                    reply = drive(direct(action), transport, config, policy, sleep=sleep)
                except DruidError as exc:
                    error = exc
            elif isinstance(action, Request):
                try:
                    reply = drive_exchange(exchange(action, config, policy), transport, sleep)
                except DruidError as exc:
                    error = exc
    except StopIteration as stop:
        value: T = stop.value
        return value


class DruidClient(ClientFacade[SyncMode]):
    """Synchronous Druid client. Use as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        config: ClusterConfig,
        retry: RetryPolicy | None = None,
        session: requests.Session | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(config, retry, clock)
        self.transport = RequestsTransport(config, session)
        self.sleep = sleep  # with ``clock``: a simulated clock runs hours of waiting in seconds (benchmarks)

    def _run(self, op: Operation[Any], on_progress: ProgressSink | None = None) -> Any:
        return drive(op, self.transport, self.config, self.retry, on_progress, self.sleep)

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> DruidClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
