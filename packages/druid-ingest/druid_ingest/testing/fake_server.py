"""FakeDruid: a fake Druid cluster (Router-style paths) over real HTTP on 127.0.0.1.

The aiohttp app runs on its own event loop in a daemon thread, so synchronous tests and clients
(``requests``) as well as async ones (``aiohttp``) can talk to it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import ssl
import threading
import time
from collections.abc import Callable, Collection, Iterable
from typing import Any
from urllib.parse import unquote

from aiohttp import web

from druid_ingest.testing import (
    fake_auto_compaction,
    fake_broker,
    fake_coordinator,
    fake_msq,
    fake_overlord,
    fake_sampler,
    fake_seed,
    fake_sql,
    fake_versions,
)
from druid_ingest.testing.fake_faults import Fault, FaultList, apply
from druid_ingest.testing.fake_http import (
    UNSECURED,
    Ctx,
    Forbidden,
    RecordedRequest,
    authenticate,
    forbidden,
    gzip_if_accepted,
    jetty_page,
)
from druid_ingest.testing.fake_state import ClusterState
from druid_ingest.testing.fake_tasks import FakeTask, SpecError, TaskPlan, parse_task
from druid_ingest.testing.fake_time import parse_interval

__all__ = ["FakeDruid", "RecordedRequest"]

_log = logging.getLogger(__name__)


_ROUTES: list[tuple[str, re.Pattern[str], Callable[..., Any]]] = [
    (method, re.compile(pattern + "$"), handler)
    for method, pattern, handler in [*fake_overlord.ROUTES, *fake_coordinator.ROUTES, *fake_broker.ROUTES,
                                      *fake_msq.ROUTES, *fake_sampler.ROUTES, *fake_sql.ROUTES,
                                      *fake_auto_compaction.ROUTES]
]


def _host_name(host: str) -> str:
    """The Host header without its port (``[::1]:8888`` -> ``::1``), lower case."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0].lower()
    return host.rsplit(":", 1)[0].lower() if host.count(":") == 1 else host.lower()


class FakeDruid:
    """A fake Druid cluster. See the package docstring for the API.

    ``overshadowed_grace``: seconds after start before the Coordinator marks overshadowed segments unused (and
    so drops them); like Druid's millisToWaitBeforeDeleting (15 min after leader start, RECORDED.md §6). Pass 0
    for the steady state of a long-running cluster.
    """

    def __init__(self, task_duration: float = 0.3, worker_capacity: int = 4, handoff_delay: float = 0.3,
                 pending_delay: float = 0.05, auth: dict[str, tuple[str, str]] | None = None,
                 duplicate_shape: str = "json", insert_delay: float = 0.0,
                 coordinator_period: float | None = None, overshadowed_grace: float = 900.0,
                 clock: Callable[[], float] = time.time, ssl_context: ssl.SSLContext | None = None,
                 broker_lag: float = 0.0, version: str = fake_versions.DEFAULT_VERSION,
                 tls_names: Collection[str] = ("127.0.0.1",)) -> None:
        if duplicate_shape not in ("json", "legacy"):
            raise ValueError("duplicate_shape must be 'json' or 'legacy'")
        if auth is not None and any(role not in ("read", "write") for _, role in auth.values()):
            raise ValueError("auth roles must be 'read' or 'write'")
        self.auth = auth
        self.ssl_context = ssl_context  # serve HTTPS (druid-contract §auth-tls TLS) when set
        self.version = version
        self.tls_names = frozenset(name.lower() for name in tls_names)
        self.broker_lag = broker_lag  # seconds between a Historical loading a segment and the Broker seeing it
        self.duplicate_shape = duplicate_shape
        self.insert_delay = insert_delay
        self.state = ClusterState(
            task_duration=task_duration, worker_capacity=worker_capacity, handoff_delay=handoff_delay,
            pending_delay=pending_delay,
            coordinator_period=handoff_delay if coordinator_period is None else coordinator_period,
            overshadowed_grace=overshadowed_grace, clock=clock)
        #: auto-compaction's configs, audit history and compaction supervisors (``fake_auto_compaction``)
        self.auto_compaction = fake_auto_compaction.AutoCompactionState()
        self._faults = FaultList()
        self._requests: list[RecordedRequest] = []
        self._requests_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    # ------------------------------------------------------------ lifecycle
    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeDruid is not started")
        return self._port

    @property
    def url(self) -> str:
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def start(self) -> FakeDruid:
        if self._thread is not None:
            raise RuntimeError("FakeDruid already started")
        ready: dict[str, Any] = {}
        started = threading.Event()
        self._loop = asyncio.new_event_loop()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            try:
                self._loop.run_until_complete(self._serve())
            except BaseException as exc:  # surface bind errors to start()
                ready["error"] = exc
                started.set()
                return
            started.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._runner.cleanup())
            # Handlers still sleeping in a "delay" fault: cancel them so none is destroyed while pending.
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

        self._thread = threading.Thread(target=run, name="FakeDruid", daemon=True)
        self._thread.start()
        started.wait()
        if "error" in ready:
            self._thread = None
            raise ready["error"]
        return self

    async def _serve(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.2)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self.ssl_context)
        await site.start()
        self._port = self._runner.addresses[0][1]

    def stop(self) -> None:
        if self._thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> FakeDruid:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------- requests
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._requests_lock:
            return list(self._requests)

    def requests_matching(self, method: str | None = None, path_prefix: str = "") -> list[RecordedRequest]:
        return [r for r in self.requests
                if (method is None or r.method == method.upper()) and r.path.startswith(path_prefix)]

    def submit_requests(self) -> list[RecordedRequest]:
        """The task submissions (``POST /druid/indexer/v1/task``; not ``/taskStatus`` or ``/task/{id}/shutdown``)."""
        return [r for r in self.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task"]

    def clear_requests(self) -> None:
        with self._requests_lock:
            self._requests.clear()

    # --------------------------------------------------------------- faults
    def add_fault(self, fault: Fault) -> Fault:
        return self._faults.add(fault)

    def clear_faults(self) -> None:
        self._faults.clear()

    # ---------------------------------------------------------------- tasks
    def plan_next_task(self, plan: TaskPlan) -> None:
        with self.state.lock:
            self.state.plans.append(plan)

    def plan_missing_report(self) -> None:
        """The next task ends SUCCESS without a report (its reports answer 404), as Druid can finish one on any
        release (``fake_versions.success_may_lack_report``)."""
        self.plan_next_task(TaskPlan(report=False))

    def issue_auto_compaction(self, datasource: str, interval: str) -> str:
        """Start a compaction of ``interval`` as Druid's auto-compaction does, under its id
        (``<prefix>_compact_<ds>_<random>_<now>``, the prefix by ``fake_versions.auto_compaction_task_prefix``);
        its id. The task then lives like a submitted one (it locks, runs, publishes at priority 25)."""
        payload = {"type": "compact", "dataSource": datasource, "context": {"priority": 25},
                   "ioConfig": {"type": "compact", "inputSpec": {"type": "interval", "interval": interval}}}
        parsed = parse_task(payload)
        now = self.state.clock()
        task_id = f"{fake_versions.auto_compaction_task_prefix(self.version)}_{self.state.new_task_id(parsed, now)}"
        self.state.insert_task(task_id, parsed, payload, now)
        return task_id

    @property
    def default_plan(self) -> TaskPlan:
        return self.state.default_plan

    @default_plan.setter
    def default_plan(self, plan: TaskPlan) -> None:
        self.state.default_plan = plan

    def seed_tasks(self, payloads: Iterable[dict[str, Any]]) -> list[str]:
        """Submit many task payloads at once, without HTTP: how benchmarks and scale tests fill the fake with
        thousands of tasks in seconds. Each payload is parsed as ``POST /task`` parses it and needs an ``id``; the
        tasks then live exactly like submitted ones. Raises ValueError naming the first bad payload."""
        items = []
        for n, body in enumerate(payloads):
            try:
                parsed = parse_task(body)
            except SpecError as exc:
                raise ValueError(f"seed_tasks: payload {n} is not a valid task: {exc}") from None
            if parsed.id is None:
                raise ValueError(f"seed_tasks: payload {n} has no 'id' (seeded tasks need one)")
            items.append((parsed.id, parsed, body))
        with self.state.lock:
            known = {task_id for task_id, _, _ in items if task_id in self.state.tasks}
            if known or len({task_id for task_id, _, _ in items}) < len(items):
                raise ValueError(f"seed_tasks: task ids already exist or repeat: {sorted(known)[:5]}")
            tasks = fake_seed.insert_tasks(self.state, items, self.state.clock())
        return [task.id for task in tasks]

    def task(self, task_id: str) -> FakeTask | None:
        with self.state.lock:
            self.state.now()
            return self.state.tasks.get(task_id)

    def forget_task(self, task_id: str) -> None:
        """Druid's task-metadata cleanup (``druid.indexer.logs.kill.*``): a completed task's row is deleted, so its
        id is unknown from then on (status 404, absent from bulk status and task lists)."""
        with self.state.lock:
            self.state.now()
            task = self.state.tasks.get(task_id)
            if task is None or task.is_active:
                raise ValueError(f"only a completed task can be forgotten: {task_id!r}")
            fake_seed.forget(self.state, task_id)

    # ------------------------------------------------------------- segments
    def set_rules(self, datasource: str, rules: list[dict[str, Any]]) -> None:
        self.state.set_rules(datasource, rules)

    def pause_loading(self) -> None:
        self.state.set_paused(True)

    def resume_loading(self) -> None:
        self.state.set_paused(False)

    def load_all_now(self) -> None:
        self.state.load_all_now()

    def set_historicals(self, count: int) -> None:
        """How many Historicals the Coordinator lists (default 1); 0 is a cluster whose Historical is down:
        nothing loads until it is set back."""
        self.state.set_historicals(count)

    def served_segment_ids(self, datasource: str) -> set[str]:
        with self.state.lock:
            self.state.now()
            return {s.identifier for s in self.state.served(datasource)}

    def used_segments(self, datasource: str) -> list[dict[str, Any]]:
        with self.state.lock:
            self.state.now()
            segs = sorted(self.state.used(datasource), key=lambda s: (s.interval, s.version, s.partition_num))
            return [s.to_json() for s in segs]

    def mark_unused(self, datasource: str, interval: str) -> int:
        """Mark the used segments inside ``interval`` unused (a retention drop); how many."""
        return self.state.mark_unused(datasource, parse_interval(interval))

    def segment_ids(self, datasource: str) -> set[str]:
        """Every segment the metadata store holds for ``datasource``, used or not (a kill removes unused ones)."""
        with self.state.lock:
            self.state.now()
            return {s.identifier for s in self.state.segments if s.datasource == datasource}

    def preload_segments(self, datasource: str, interval: str, version: str,
                         partitions: int = 1) -> list[dict[str, Any]]:
        segs = self.state.preload(datasource, parse_interval(interval), version, partitions)
        return [s.to_json() for s in segs]

    # ------------------------------------------------------------- dispatch
    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        raw_path = request.raw_path.split("?", 1)[0]
        rec = RecordedRequest(
            method=request.method, path=request.path, raw_path=raw_path,
            query={k: v for k, v in request.query.items()}, headers=dict(request.headers.items()),
            body=body, time=time.time(), query_string=request.query_string)
        try:
            rec.json = json.loads(body) if body else None
        except (ValueError, UnicodeDecodeError):
            rec.json = None
        with self._requests_lock:
            self._requests.append(rec)  # recorded before faults and handling
        fault = self._faults.take(rec.method, rec.path)
        if fault is not None:
            resp = await apply(fault, request, rec.path)
            if resp is not None:
                return resp
        try:
            return gzip_if_accepted(request, await self._handle(request, rec, raw_path))
        except Forbidden:
            return forbidden()
        except Exception:  # a bug in the fake: answer like Jetty would, keep serving
            _log.exception("FakeDruid handler failed for %s %s", rec.method, rec.path)
            return jetty_page(500, rec.path)

    async def _handle(self, request: web.Request, rec: RecordedRequest, raw_path: str) -> web.StreamResponse:
        path = raw_path
        # Router (druid-contract §submit): /proxy/coordinator/* and /proxy/overlord/* are prefix-stripped.
        for prefix in ("/proxy/coordinator", "/proxy/overlord"):
            if path.startswith(prefix + "/"):
                path = path[len(prefix):]
        if path == "/proxy/enabled":
            return web.json_response({"enabled": True})
        if self.ssl_context is not None and fake_versions.checks_sni_host(self.version) \
                and _host_name(request.host) not in self.tls_names:
            return jetty_page(400, rec.path, "Invalid SNI")  # Jetty 12's SecureRequestCustomizer (Druid 35+)
        role = None
        if self.auth is not None and unquote(path) not in UNSECURED:
            role, denied = authenticate(self.auth, request.headers.get("Authorization"), rec.path)
            if denied is not None:
                return denied
        allowed = False
        for method, pattern, handler in _ROUTES:
            m = pattern.match(path)
            if not m:
                continue
            allowed = True
            if method != rec.method:
                continue
            params = {k: unquote(v) for k, v in m.groupdict().items()}
            return await handler(Ctx(fake=self, state=self.state, rec=rec, params=params, role=role))
        return jetty_page(405 if allowed else 404, rec.path)
