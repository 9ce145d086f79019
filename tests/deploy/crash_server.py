"""The crash points' test server: one loopback HTTP server that is both the crash DAGs' Druid address (a relay to
the real Router) and their input (the generator's events over Druid's ``http`` input source).

Why one server in the test process, not a hook in the package: every window a crash point needs is opened from
the outside, on the wire, so the shipped code path stays the one users run:

- **hold the submit answer**: the relay forwards ``POST /druid/indexer/v1/task`` to Druid (Druid has the task)
  and keeps the answer from the worker until released. The worker is then provably between "Druid accepted the
  task" and "XCom pushed"; the test SIGKILLs it inside that window (any length it likes), found by the TCP peer
  of the held request.
- **hold a day's input**: the answer for the day's file starts (status line, headers, the first rows) and the
  rest waits until released, so the Druid task stays RUNNING as long as a test needs (mark failed, timeouts).
- **serve a malformed day**: a line that is not JSON; the crash spec's ``maxParseExceptions: 0`` makes Druid
  FAIL the task. Switching the day back to ``ok`` is "the input was fixed".

It also records every ``Authorization`` header it relays: proof that the connection's password was in flight
(the secrets check asserts it is nowhere else).
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import requests

SUBMIT_PATH = "/druid/indexer/v1/task"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length", "host",
              "te", "trailer", "upgrade", "proxy-authorization", "proxy-authenticate"}
DAY_FILE = re.compile(r"^/input/(\d{4}-\d{2}-\d{2})\.json$")


@dataclass
class HeldSubmit:
    """A submit POST that Druid accepted and whose answer the relay keeps from the worker."""

    task_id: str
    client_port: int
    answered: threading.Event = field(default_factory=threading.Event)


@dataclass
class CrashState:
    events_dir: Path
    druid_url: str
    modes: dict[str, str] = field(default_factory=dict)  # day -> ok | hold | bad (default ok)
    released: dict[str, threading.Event] = field(default_factory=dict)  # day -> set when a hold ends
    reads: dict[str, int] = field(default_factory=dict)  # day -> input reads started
    hold_next_submit: bool = False
    held: list[HeldSubmit] = field(default_factory=list)
    held_seen: threading.Condition = field(default_factory=threading.Condition)
    release_submit: threading.Event = field(default_factory=threading.Event)
    authorizations: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def day_bytes(self, day: str) -> bytes:
        files = sorted((self.events_dir / day).glob("*.json"))
        if not files:
            raise FileNotFoundError(f"no generator files for {day} in {self.events_dir}")
        return b"".join(f.read_bytes() for f in files)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet: the tests print what matters
        pass

    def do_GET(self) -> None:
        match = DAY_FILE.match(self.path)
        if match:
            self._serve_day(match.group(1))
        else:
            self._relay()

    def do_POST(self) -> None:
        self._relay()

    def do_DELETE(self) -> None:
        self._relay()

    # ---- input ------------------------------------------------------------------------------------------

    def _serve_day(self, day: str) -> None:
        state = self.server.state
        with state.lock:
            mode = state.modes.get(day, "ok")
            state.reads[day] = state.reads.get(day, 0) + 1
            gate = state.released.setdefault(day, threading.Event())
        body = state.day_bytes(day)
        if mode == "bad":
            body = b'{"event_ts": "not json at all\n' + body
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if mode == "hold":
            head = body.index(b"\n") + 1
            self.wfile.write(body[:head])  # Druid reads a row, then waits for the rest
            self.wfile.flush()
            while not gate.wait(0.5):
                pass
            body = body[head:]
        with contextlib.suppress(OSError):  # Druid gave up on the read (its task was shut down)
            self.wfile.write(body)

    # ---- relay to Druid ---------------------------------------------------------------------------------

    def _relay(self) -> None:
        state = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        if auth := self.headers.get("Authorization"):
            with state.lock:
                state.authorizations.append(auth)
        resp = requests.request(self.command, state.druid_url + self.path, data=body, headers=headers,
                                allow_redirects=False, timeout=120)
        held = None
        if self.command == "POST" and self.path.split("?")[0] == SUBMIT_PATH and resp.ok:
            with state.lock:
                hold, state.hold_next_submit = state.hold_next_submit, False
            if hold:
                held = HeldSubmit(resp.json()["task"], self.client_address[1])
                with state.held_seen:
                    state.held.append(held)
                    state.held_seen.notify_all()
                state.release_submit.wait(600)
        try:
            self.send_response(resp.status_code)
            for k, v in resp.headers.items():
                if k.lower() not in HOP_BY_HOP:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(resp.content)))
            self.end_headers()
            self.wfile.write(resp.content)
        except OSError:  # the worker was killed while we held its answer
            pass
        if held:
            held.answered.set()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: CrashState

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (the killed worker, a Druid task shut down mid-read) is expected here."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class CrashServer:
    """``with CrashServer(events_dir, druid_url) as server: server.url``; one per test session."""

    def __init__(self, events_dir: Path, druid_url: str) -> None:
        self.state = CrashState(Path(events_dir), druid_url.rstrip("/"))
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = self.state
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.input_base = f"{self.url}/input"

    def __enter__(self) -> CrashServer:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for gate in self.state.released.values():
            gate.set()
        self.state.release_submit.set()
        self._server.shutdown()
        self._server.server_close()

    # ---- what the tests call ----------------------------------------------------------------------------

    def set_mode(self, day: str, mode: str) -> None:
        if mode not in ("ok", "hold", "bad"):
            raise ValueError(f"mode={mode!r}: expected ok, hold or bad")
        with self.state.lock:
            self.state.modes[day] = mode
            self.state.released.setdefault(day, threading.Event()).clear()

    def release(self, day: str) -> None:
        with self.state.lock:
            self.state.modes[day] = "ok"
            self.state.released.setdefault(day, threading.Event()).set()

    def reads(self, day: str) -> int:
        with self.state.lock:
            return self.state.reads.get(day, 0)

    def hold_next_submit(self) -> None:
        self.state.release_submit.clear()
        with self.state.lock:
            self.state.hold_next_submit = True

    def wait_held_submit(self, timeout: float) -> HeldSubmit:
        deadline = time.monotonic() + timeout
        with self.state.held_seen:
            while not self.state.held:
                left = deadline - time.monotonic()
                assert left > 0, f"no submit POST reached the relay {self.url} within {timeout}s"
                self.state.held_seen.wait(left)
            return self.state.held.pop(0)

    def release_submit(self) -> None:
        self.state.release_submit.set()

    def authorizations(self) -> list[str]:
        with self.state.lock:
            return list(self.state.authorizations)
