"""The one client surface, shared by :class:`DruidClient` and :class:`AsyncDruidClient`.

Every method builds an operation (a generator from ``operations``/``endpoints``) and hands it to
``self._run``: the sync client runs it to a value, the async client returns an awaitable of that value.
So both clients have exactly the same methods, arguments and results by construction.
"""

from __future__ import annotations

from typing import Any

from . import endpoints as ep
from . import operations as ops
from .config import ClusterConfig
from .exchange import Operation, call
from .ids import base_task_id
from .models import HandoffTarget
from .retry import PollSchedule, RetryPolicy
from .spec import spec_facts, validate_spec


class ClientFacade:
    """Druid ingestion calls. In the async client every method returns an awaitable of the same result."""

    def __init__(self, config: ClusterConfig, retry: RetryPolicy | None = None) -> None:
        self.config = config
        self.retry = retry or RetryPolicy()

    def __repr__(self) -> str:  # never shows credentials: ClusterConfig masks its Secret
        return f"{type(self).__name__}({self.config.url or self.config.overlord_url!r})"

    def _run(self, op: Operation[Any]) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    # ---- single endpoints ------------------------------------------------------------------------

    def submit(self, spec: dict[str, Any]) -> Any:
        """POST the spec as is (no ensure logic). Returns the task id Druid accepted."""
        return self._run(call(ep.submit(spec), ep.parse_submit))

    def status(self, task_id: str) -> Any:
        """TaskStatus; raises UnknownTaskError for an unknown id."""
        return self._run(call(ep.status(task_id), ep.parse_status))

    def status_or_none(self, task_id: str) -> Any:
        return self._run(ops.status_or_none(task_id))

    def bulk_status(self, task_ids: list[str]) -> Any:
        """{id: TaskStatus} in one call when permitted; unknown ids are absent."""
        return self._run(ops.bulk_status(task_ids))

    def report(self, task_id: str) -> Any:
        """The raw ``/reports`` JSON, or None when Druid has none (yet)."""
        return self._run(call(ep.reports(task_id), ep.parse_reports))

    def report_summary(self, task_id: str) -> Any:
        """ReportSummary of ``/reports``, or None when there is none or it cannot be read."""
        return self._run(ops.report_summary(task_id))

    def observe_task(self, task_id: str, ceiling: str | None = None) -> Any:
        """TaskStatus, with ``version_ceiling`` filled the first time the task is seen holding its lock."""
        return self._run(ops.observe_task(task_id, ceiling))

    def shutdown(self, task_id: str) -> Any:
        return self._run(call(ep.shutdown(task_id), ep.parse_shutdown))

    def task_payload(self, task_id: str) -> Any:
        return self._run(call(ep.task_payload(task_id), ep.parse_task_payload))

    def capacity(self) -> Any:
        """ClusterCapacity from ``/workers``: slots per worker and in use."""
        return self._run(call(ep.workers(), ep.parse_workers))

    def completed_tasks(self, datasource: str | None = None, limit: int | None = 100) -> Any:
        """Recent completed tasks (newest first), e.g. to learn p95 durations."""
        return self._run(call(ep.tasks("complete", datasource, limit), ep.parse_tasks))

    def is_leader(self) -> Any:
        return self._run(call(ep.is_leader(), ep.parse_is_leader))

    def health(self, service: str = "overlord") -> Any:
        return self._run(call(ep.health(service), ep.parse_health))

    def sql(self, query: str, parameters: list[dict[str, Any]] | None = None) -> Any:
        """Druid SQL on the Broker; rows as dicts."""
        return self._run(call(ep.sql(query, parameters), ep.parse_sql))

    # ---- multi-step --------------------------------------------------------------------------------

    def ensure_submitted(
        self,
        spec: dict[str, Any],
        *,
        datasource: str | None = None,
        intervals: list[str] | None = None,
        idempotency_key: str | None = None,
        id_prefix: str = "ingest",
        max_attempts: int = 20,
    ) -> Any:
        """SubmitOutcome: adopt a live or succeeded task with this work's id, or submit the next attempt.

        The spec is validated first: a malformed spec raises SpecValidationError before any HTTP call.
        ``datasource``/``intervals`` default to the spec's own (they only shape the readable id).
        """
        validate_spec(spec)
        facts = spec_facts(spec)
        base = base_task_id(
            spec, datasource or facts.datasource or "", intervals or facts.intervals, idempotency_key, id_prefix
        )
        return self._run(ops.ensure_submitted(spec, base, max_attempts))

    def ingest(
        self,
        spec: dict[str, Any],
        *,
        datasource: str | None = None,
        intervals: list[str] | None = None,
        idempotency_key: str | None = None,
        id_prefix: str = "ingest",
        task_timeout: float = 12 * 3600.0,
        handoff_timeout: float | None = 3600.0,
        schedule: PollSchedule | None = None,
        on_never: str = "fail",
        max_attempts: int = 20,
    ) -> Any:
        """IngestResult: submit or adopt, wait for the task, then until its data is queryable.

        Validates first (SpecValidationError before any HTTP). Raises DruidTaskFailedError when the task FAILED
        (its message holds the full errorMsg, row stats and first unparseable events), HandoffNeverError,
        DruidWaitTimeoutError. ``handoff_timeout=None`` stops at the task's SUCCESS.
        """
        validate_spec(spec)
        facts = spec_facts(spec)
        ds = datasource or facts.datasource or ""
        spans = intervals or list(facts.intervals)
        base = base_task_id(spec, ds, spans, idempotency_key, id_prefix)
        return self._run(
            ops.ingest(
                spec, base, datasource=ds, intervals=spans, append=facts.append, task_timeout=task_timeout,
                handoff_timeout=handoff_timeout, schedule=schedule, on_never=on_never, max_attempts=max_attempts,
            )
        )

    def wait_for_task(
        self, task_id: str, timeout: float, schedule: PollSchedule | None = None, on_poll: Any = None
    ) -> Any:
        """TaskStatus once SUCCESS or FAILED; DruidWaitTimeoutError after ``timeout`` seconds."""
        return self._run(ops.wait_for_task(task_id, timeout, schedule, on_poll))

    def handoff_target(
        self,
        task_id: str,
        datasource: str,
        intervals: list[str],
        append: bool = False,
        version_ceiling: str | None = None,
    ) -> Any:
        """HandoffTarget for a SUCCESS task (reads its status and report once).

        Pass the ``version_ceiling`` of the status ``wait_for_task`` returned: it tells this task's segment
        version from a later replace's. Raises DruidUsageError when ``datasource`` is not the task's own.
        """
        return self._run(ops.handoff_target(task_id, datasource, intervals, append, version_ceiling))

    def check_handoff(self, target: HandoffTarget) -> Any:
        """HandoffResult of one look at metadata and the served inventory."""
        return self._run(ops.check_handoff(target))

    def wait_for_handoff(
        self,
        target: HandoffTarget,
        timeout: float,
        schedule: PollSchedule | None = None,
        on_poll: Any = None,
        on_never: str = "fail",
    ) -> Any:
        """HandoffResult once loaded/nothing/superseded (or never, with ``on_never="pass"``).

        Raises HandoffNeverError for zero-replica segments by default, DruidWaitTimeoutError after ``timeout``.
        """
        return self._run(ops.wait_for_handoff(target, timeout, schedule, on_poll, on_never=on_never))
