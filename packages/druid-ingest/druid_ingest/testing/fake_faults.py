"""Fault injection for the fake Druid: errors a real cluster, proxy or network produces."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import struct
import threading
from dataclasses import dataclass, field

from aiohttp import web

from druid_ingest.testing.fake_http import druid_error, jetty_page, proxy_html

__all__ = ["FAULT_KINDS", "Fault", "FaultList", "apply"]

FAULT_KINDS = ("status", "html", "reset", "delay", "redirect", "leaderless", "queue_not_ready", "throttle")


@dataclass
class Fault:
    """One injected fault. ``path`` is a regex searched in the decoded path; ``method`` None = any.

    ``times`` = how often it fires (None = forever); ``after`` = matching requests to let through first.
    """

    method: str | None = None
    path: str = ""
    kind: str = "status"
    status: int | None = None
    body: str | None = None
    content_type: str | None = None
    times: int | None = 1
    delay: float = 0.0
    redirect_to: str | None = None
    after: int = 0
    seen: int = field(default=0, compare=False)
    fired: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"Unknown fault kind {self.kind!r}; expected one of {FAULT_KINDS}")
        if self.kind == "redirect" and not self.redirect_to:
            raise ValueError("A redirect fault needs redirect_to (e.g. another FakeDruid's url)")
        self._regex = re.compile(self.path)

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method.upper() == method.upper()) and bool(self._regex.search(path))


class FaultList:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: list[Fault] = []

    def add(self, fault: Fault) -> Fault:
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def take(self, method: str, path: str) -> Fault | None:
        """The first matching fault with shots left (after its ``after`` skips), consuming one shot."""
        with self._lock:
            for fault in self._faults:
                if (fault.times is not None and fault.fired >= fault.times) or not fault.matches(method, path):
                    continue
                fault.seen += 1
                if fault.seen <= fault.after:
                    continue
                fault.fired += 1
                return fault
        return None


def _abort(request: web.Request) -> None:
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        # SO_LINGER 0: close with RST instead of FIN, like a proxy or peer dying mid-request.
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


async def apply(fault: Fault, request: web.Request, path: str) -> web.StreamResponse | None:
    """Response replacing the normal handling, or None to handle normally (``delay``)."""
    kind = fault.kind
    if kind == "delay":
        await asyncio.sleep(fault.delay)  # then handled normally: lets clients hit read timeouts
        return None
    if fault.delay:
        await asyncio.sleep(fault.delay)
    if kind == "status":
        return web.Response(status=fault.status or 500, text=fault.body or "",
                            content_type=fault.content_type or "text/plain")
    if kind == "html":
        if fault.body is not None:
            return web.Response(status=fault.status or 502, text=fault.body,
                                content_type=fault.content_type or "text/html")
        return proxy_html(fault.status or 502)
    if kind == "reset":
        _abort(request)
        return web.Response(status=500)  # never reaches the client: the transport is gone
    if kind == "redirect":
        # druid-contract §submit RedirectFilter: 307 with Location: <leader-url><same URI>?<same query>
        resp = web.Response(status=fault.status or 307)
        resp.headers["Location"] = fault.redirect_to.rstrip("/") + request.raw_path
        return resp
    if kind == "leaderless":
        # druid-contract §submit: no known leader -> RedirectFilter sendError(503), Jetty page
        return jetty_page(503, path)
    if kind == "queue_not_ready":
        # druid-contract §submit step 5: leader whose queue is not ready -> 503, empty body
        return web.Response(status=503)
    # kind == "throttle": druid-contract §submit step 6(5) queue full -> CAPACITY_EXCEEDED 429 (forPersona(ADMIN),
    # code "general")
    return druid_error(429, "general", "CAPACITY_EXCEEDED",
                       "Task queue already contains [1000] tasks. Retry later or increase "
                       "'druid.indexer.queue.maxSize'[1000].", persona="ADMIN")
