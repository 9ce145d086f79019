"""The single-endpoint half of the one client surface (``EndpointCalls``), shared by :class:`DruidClient` and
:class:`AsyncDruidClient`.

Every method builds an operation (a generator from ``endpoints``/``operations``/``waits``) and hands it to
``self._run``: the sync client runs it to a value, the async client returns an awaitable of that value. So both
clients have exactly the same methods, arguments and results by construction. The ``@overload`` pairs only
tell the type checker which, from the client's ``Mode`` parameter: ``DruidClient.status("x")`` is a
``TaskStatus``, ``AsyncDruidClient.status("x")`` an ``Awaitable[TaskStatus]``. Single-endpoint calls live here; waits
and the plan-driven calls in ``_facade.py`` (``ClientFacade``, the whole surface).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar, overload

from druid_ingest.api import ClusterCapacity, ReportSummary, SqlResult, TaskStatus
from druid_ingest.api import endpoints as ep
from druid_ingest.ops import WaitMemory, newest_of_type
from druid_ingest.ops import operations as ops
from druid_ingest.wire import ClusterConfig, Operation, ProgressSink, RetryPolicy, call

__all__ = ["AsyncMode", "ClientBase", "EndpointCalls", "SyncMode"]


class SyncMode:
    """Type marker: the client runs each operation to its value (``DruidClient``)."""


class AsyncMode:
    """Type marker: the client returns an awaitable of each operation's value (``AsyncDruidClient``)."""


Mode = TypeVar("Mode", SyncMode, AsyncMode)


class ClientBase(Generic[Mode]):
    """Config, retry policy and the ``_run`` hook both clients implement. ``Mode`` only exists for the type
    checker: it picks the overload of each method (value or awaitable)."""

    def __init__(
        self, config: ClusterConfig, retry: RetryPolicy | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.config = config
        self.retry = retry or RetryPolicy()
        #: what "now" is for the waits' deadlines and schedules (epoch seconds; injectable for simulations)
        self.clock = clock
        #: what this client's waits learn and reuse (passed into each wait); the process-wide caches by default,
        #: replace it with ``WaitMemory(url)`` to learn alone
        self.wait_memory = WaitMemory.shared(config.base_url("overlord"))

    def __repr__(self) -> str:  # never shows credentials: ClusterConfig masks its Secret
        return f"{type(self).__name__}({self.config.url or self.config.overlord_url!r})"

    def _run(self, op: Operation[Any], on_progress: ProgressSink | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError


class EndpointCalls(ClientBase[Mode]):
    """One Druid endpoint each (``endpoints.py`` builds the request and parses the answer)."""

    @overload
    def submit(self: EndpointCalls[SyncMode], spec: dict[str, Any]) -> str: ...
    @overload
    def submit(self: EndpointCalls[AsyncMode], spec: dict[str, Any]) -> Awaitable[str]: ...
    def submit(self, spec: dict[str, Any]) -> Any:
        """POST the spec as is (no ensure logic). Returns the task id Druid accepted."""
        return self._run(call(ep.submit(spec), ep.parse_submit))

    @overload
    def status(self: EndpointCalls[SyncMode], task_id: str) -> TaskStatus: ...
    @overload
    def status(self: EndpointCalls[AsyncMode], task_id: str) -> Awaitable[TaskStatus]: ...
    def status(self, task_id: str) -> Any:
        """TaskStatus; raises UnknownTaskError for an unknown id."""
        return self._run(call(ep.status(task_id), ep.parse_status))

    @overload
    def status_or_none(self: EndpointCalls[SyncMode], task_id: str) -> TaskStatus | None: ...
    @overload
    def status_or_none(self: EndpointCalls[AsyncMode], task_id: str) -> Awaitable[TaskStatus | None]: ...
    def status_or_none(self, task_id: str) -> Any:
        return self._run(ops.status_or_none(task_id))

    @overload
    def observe_task(self: EndpointCalls[SyncMode], task_id: str, ceiling: str | None = None) -> TaskStatus: ...
    @overload
    def observe_task(
        self: EndpointCalls[AsyncMode], task_id: str, ceiling: str | None = None
    ) -> Awaitable[TaskStatus]: ...
    def observe_task(self, task_id: str, ceiling: str | None = None) -> Any:
        """TaskStatus, with ``version_ceiling`` filled the first time the task is seen holding its lock."""
        return self._run(ops.observe_task(task_id, ceiling))

    @overload
    def bulk_status(self: EndpointCalls[SyncMode], task_ids: list[str]) -> dict[str, TaskStatus]: ...
    @overload
    def bulk_status(self: EndpointCalls[AsyncMode], task_ids: list[str]) -> Awaitable[dict[str, TaskStatus]]: ...
    def bulk_status(self, task_ids: list[str]) -> Any:
        """{id: TaskStatus} in one call when permitted; unknown ids are absent."""
        return self._run(ops.bulk_status(task_ids))

    @overload
    def state_write_permitted(self: EndpointCalls[SyncMode]) -> bool: ...
    @overload
    def state_write_permitted(self: EndpointCalls[AsyncMode]) -> Awaitable[bool]: ...
    def state_write_permitted(self) -> Any:
        """Whether the login has STATE WRITE (bulk status, active locks): one bulk status read of an id no task
        has. False means the waits read status per task; submitting needs DATASOURCE WRITE, checked on submit."""
        return self._run(call(ep.bulk_status([ep.PROBE_TASK_ID]), ep.parse_permitted))

    @overload
    def report(self: EndpointCalls[SyncMode], task_id: str) -> dict[str, Any] | None: ...
    @overload
    def report(self: EndpointCalls[AsyncMode], task_id: str) -> Awaitable[dict[str, Any] | None]: ...
    def report(self, task_id: str) -> Any:
        """The raw ``/reports`` JSON, or None when Druid has none (yet)."""
        return self._run(call(ep.reports(task_id), ep.parse_reports))

    @overload
    def report_summary(self: EndpointCalls[SyncMode], task_id: str) -> ReportSummary | None: ...
    @overload
    def report_summary(self: EndpointCalls[AsyncMode], task_id: str) -> Awaitable[ReportSummary | None]: ...
    def report_summary(self, task_id: str) -> Any:
        """ReportSummary of ``/reports``, or None when there is none or it cannot be read."""
        return self._run(ops.report_summary(task_id))

    @overload
    def shutdown(self: EndpointCalls[SyncMode], task_id: str) -> None: ...
    @overload
    def shutdown(self: EndpointCalls[AsyncMode], task_id: str) -> Awaitable[None]: ...
    def shutdown(self, task_id: str) -> Any:
        return self._run(call(ep.shutdown(task_id), ep.parse_shutdown))

    @overload
    def task_payload(self: EndpointCalls[SyncMode], task_id: str) -> dict[str, Any]: ...
    @overload
    def task_payload(self: EndpointCalls[AsyncMode], task_id: str) -> Awaitable[dict[str, Any]]: ...
    def task_payload(self, task_id: str) -> Any:
        return self._run(call(ep.task_payload(task_id), ep.parse_task_payload))

    @overload
    def capacity(self: EndpointCalls[SyncMode]) -> ClusterCapacity: ...
    @overload
    def capacity(self: EndpointCalls[AsyncMode]) -> Awaitable[ClusterCapacity]: ...
    def capacity(self) -> Any:
        """ClusterCapacity from ``/workers``: slots per worker and in use."""
        return self._run(call(ep.workers(), ep.parse_workers))

    @overload
    def completed_tasks(
        self: EndpointCalls[SyncMode], datasource: str | None = None, limit: int | None = 100,
        task_type: str | None = None,
    ) -> list[TaskStatus]: ...
    @overload
    def completed_tasks(
        self: EndpointCalls[AsyncMode], datasource: str | None = None, limit: int | None = 100,
        task_type: str | None = None,
    ) -> Awaitable[list[TaskStatus]]: ...
    def completed_tasks(
        self, datasource: str | None = None, limit: int | None = 100, task_type: str | None = None
    ) -> Any:
        """The newest ``limit`` completed tasks however old (without a limit: Druid's default, the last day's),
        optionally of one ``task_type``, e.g. to learn p95 durations: the newest ``limit`` of that type, read past a
        parallel ingestion's subtasks (Druid applies ``max`` before ``type``: druid-contract §workers)."""
        if task_type and limit:
            return self._run(newest_of_type(datasource, task_type, limit))
        return self._run(call(ep.completed_tasks(datasource, limit, task_type), ep.parse_tasks))

    @overload
    def is_leader(self: EndpointCalls[SyncMode]) -> bool: ...
    @overload
    def is_leader(self: EndpointCalls[AsyncMode]) -> Awaitable[bool]: ...
    def is_leader(self) -> Any:
        return self._run(call(ep.is_leader(), ep.parse_is_leader))

    @overload
    def health(self: EndpointCalls[SyncMode], service: ep.HealthService = "overlord") -> bool: ...
    @overload
    def health(self: EndpointCalls[AsyncMode], service: ep.HealthService = "overlord") -> Awaitable[bool]: ...
    def health(self, service: ep.HealthService = "overlord") -> Any:
        return self._run(call(ep.health(service), ep.parse_health))

    @overload
    def sql(
        self: EndpointCalls[SyncMode], query: str, parameters: list[dict[str, Any]] | None = None
    ) -> list[dict[str, Any]]: ...
    @overload
    def sql(
        self: EndpointCalls[AsyncMode], query: str, parameters: list[dict[str, Any]] | None = None
    ) -> Awaitable[list[dict[str, Any]]]: ...
    def sql(self, query: str, parameters: list[dict[str, Any]] | None = None) -> Any:
        """Druid SQL on the Broker; rows as dicts."""
        return self._run(call(ep.sql(query, parameters), ep.parse_sql))

    @overload
    def sql_table(
        self: EndpointCalls[SyncMode], query: str, parameters: list[dict[str, Any]] | None = None,
        context: dict[str, Any] | None = None,
    ) -> SqlResult: ...
    @overload
    def sql_table(
        self: EndpointCalls[AsyncMode], query: str, parameters: list[dict[str, Any]] | None = None,
        context: dict[str, Any] | None = None,
    ) -> Awaitable[SqlResult]: ...
    def sql_table(
        self, query: str, parameters: list[dict[str, Any]] | None = None, context: dict[str, Any] | None = None
    ) -> Any:
        """Druid SQL on the Broker with the query ``context``; rows as lists with column names and types."""
        return self._run(call(ep.sql_query(query, parameters, context), ep.parse_sql_result))
