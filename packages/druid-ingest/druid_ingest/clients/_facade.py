"""``ClientFacade``, the whole client surface: ``EndpointCalls`` and ``AutoCompactionCalls`` plus the multi-step
half, submit (the plan-driven ensure) and ingest, the handoff target, the segment writes, the waits.

Same construction as ``_endpoint_calls.py``: one implementation per method, handed to ``self._run``; the overloads only
give each client its exact type. Waits come in two forms over the same operation (``druid_ingest.ops``): ``watch_*``
returns the typed outcome (what triggers serialize), ``wait_for_*`` settles it into the value or raises.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from typing import Any, overload

from druid_ingest.api import HandoffResult, HandoffTarget, TaskStatus
from druid_ingest.clients._auto_compaction_calls import AutoCompactionCalls
from druid_ingest.clients._endpoint_calls import AsyncMode, Mode, SyncMode
from druid_ingest.ops import (
    DEFAULT_HANDOFF_TIMEOUT,
    DEFAULT_TASK_TIMEOUT,
    AfterFailedPublish,
    ChangeBatch,
    HandoffOutcome,
    IngestionOutcome,
    IngestResult,
    PollSchedule,
    SegmentWriteResult,
    SubmitOutcome,
    TaskOutcome,
    WaitMemory,
    WatchCursor,
    check_after_failed_publish,
    check_on_never,
)
from druid_ingest.ops import handoff_wait as handoff_wait
from druid_ingest.ops import ingest as ingest_op
from druid_ingest.ops import operations as ops
from druid_ingest.ops import segment_write as writes
from druid_ingest.ops import step_lines as step_lines
from druid_ingest.ops import waits as waits
from druid_ingest.ops.gate import steps as gate
from druid_ingest.ops.watch import look as watch
from druid_ingest.planning import Plan, SegmentWritePlan, base_task_id, build_plan
from druid_ingest.wire import Operation, ProgressSink

__all__ = ["ClientFacade", "as_plan"]

SpecOrPlan = dict[str, Any] | Plan


def as_plan(
    spec: SpecOrPlan,
    *,
    datasource: str | None = None,
    intervals: list[str] | None = None,
    idempotency_key: str | None = None,
    id_prefix: str = "ingest",
) -> Plan:
    """A plan (any kind of work) as is, or a native one built from a spec dict (validated once, here).

    For a spec dict, ``datasource``/``intervals`` only shape the readable task id (as they always have; intervals
    are read as instants, so any spelling of the spec's own gives the plan's id); they are not injected into the
    spec. Use
    :func:`~.plan.build_plan` to inject per-run values.
    """
    if not isinstance(spec, dict):
        if datasource or intervals or idempotency_key:
            raise ValueError("datasource/intervals/idempotency_key belong to build_plan() when passing a plan")
        return spec
    plan = build_plan(spec, idempotency_key=idempotency_key, id_prefix=id_prefix)
    if (datasource or plan.datasource) == plan.datasource and (intervals or list(plan.intervals)) == list(
        plan.intervals
    ):
        return plan
    base = base_task_id(plan.spec, datasource or plan.datasource, intervals or list(plan.intervals),
                        idempotency_key or None, id_prefix)
    return replace(plan, base_task_id=base)


def _settled_task(op: Operation[TaskOutcome]) -> Operation[TaskStatus]:
    """The terminal status (SUCCESS or FAILED); a timeout raises DruidWaitTimeoutError."""
    outcome = yield from op
    if outcome.status is None or outcome.kind in ("timeout", "error"):
        raise outcome.error()
    return outcome.status


def _settled_handoff(op: Operation[HandoffOutcome], on_never: str, allow_empty: bool) -> Operation[HandoffResult]:
    outcome = yield from op
    return outcome.settle(on_never, allow_empty)


class ClientFacade(AutoCompactionCalls[Mode]):
    """Druid ingestion calls. In the async client every method returns an awaitable of the same result."""

    @overload
    def ensure_submitted(
        self: ClientFacade[SyncMode], spec: SpecOrPlan, *, datasource: str | None = None,
        intervals: list[str] | None = None, idempotency_key: str | None = None, id_prefix: str = "ingest",
        max_attempts: int = 20, allow_empty: bool = False, after_failed_publish: AfterFailedPublish = "fail",
    ) -> SubmitOutcome: ...
    @overload
    def ensure_submitted(
        self: ClientFacade[AsyncMode], spec: SpecOrPlan, *, datasource: str | None = None,
        intervals: list[str] | None = None, idempotency_key: str | None = None, id_prefix: str = "ingest",
        max_attempts: int = 20, allow_empty: bool = False, after_failed_publish: AfterFailedPublish = "fail",
    ) -> Awaitable[SubmitOutcome]: ...
    def ensure_submitted(
        self, spec: SpecOrPlan, *, datasource: str | None = None, intervals: list[str] | None = None,
        idempotency_key: str | None = None, id_prefix: str = "ingest", max_attempts: int = 20,
        allow_empty: bool = False, after_failed_publish: AfterFailedPublish = "fail",
    ) -> Any:
        """SubmitOutcome: adopt a live or succeeded task with this work's id, or submit the next attempt.

        Takes a :class:`~druid_ingest.planning.Plan` (native, MSQ), or a spec dict that is planned here
        (validated first: a malformed spec raises SpecValidationError before any HTTP call). A new submit of a
        native ``dropExisting`` replace first probes its input through the sampler: no row of the intervals
        raises DruidEmptyInputError, a sampler that cannot be asked DruidInputProbeRefusedError or
        DruidInputProbeError, nothing submitted either way. ``allow_empty=True``: no probe.
        After a FAILED attempt of an append that may have published, DruidMayHavePublishedError and nothing
        submitted, unless ``after_failed_publish="resubmit"`` (druid-contract §attempts).
        """
        rule = check_after_failed_publish(after_failed_publish)
        plan = as_plan(spec, datasource=datasource, intervals=intervals, idempotency_key=idempotency_key,
                       id_prefix=id_prefix)
        return self._run(ops.ensure_submitted(plan, max_attempts, allow_empty=allow_empty,
                                              after_failed_publish=rule))

    @overload
    def check_capacity(self: ClientFacade[SyncMode], peak_slots: int) -> step_lines.StepLine | None: ...
    @overload
    def check_capacity(
        self: ClientFacade[AsyncMode], peak_slots: int
    ) -> Awaitable[step_lines.StepLine | None]: ...
    def check_capacity(self, peak_slots: int) -> Any:
        """``ops.capacity_verdict`` for a plan needing ``peak_slots`` at once, with this client's wait memory (the
        cluster's slots are read once per ``CAPACITY_TTL`` per process)."""
        return self._run(step_lines.capacity_verdict(peak_slots, self.wait_memory))

    @overload
    def ingest(
        self: ClientFacade[SyncMode], spec: SpecOrPlan, *, task_timeout: float = DEFAULT_TASK_TIMEOUT,
        handoff_timeout: float | None = DEFAULT_HANDOFF_TIMEOUT, schedule: PollSchedule | None = None,
        on_never: str = "fail", allow_empty: bool = False, idempotency_key: str | None = None,
        on_progress: ProgressSink | None = None, after_failed_publish: AfterFailedPublish = "fail",
    ) -> IngestResult: ...
    @overload
    def ingest(
        self: ClientFacade[AsyncMode], spec: SpecOrPlan, *, task_timeout: float = DEFAULT_TASK_TIMEOUT,
        handoff_timeout: float | None = DEFAULT_HANDOFF_TIMEOUT, schedule: PollSchedule | None = None,
        on_never: str = "fail", allow_empty: bool = False, idempotency_key: str | None = None,
        on_progress: ProgressSink | None = None, after_failed_publish: AfterFailedPublish = "fail",
    ) -> Awaitable[IngestResult]: ...
    def ingest(
        self, spec: SpecOrPlan, *, task_timeout: float = DEFAULT_TASK_TIMEOUT,
        handoff_timeout: float | None = DEFAULT_HANDOFF_TIMEOUT,
        schedule: PollSchedule | None = None, on_never: str = "fail", allow_empty: bool = False,
        idempotency_key: str | None = None,
        on_progress: ProgressSink | None = None, after_failed_publish: AfterFailedPublish = "fail",
    ) -> Any:
        """IngestResult: submit or adopt, wait for the task, then until its data is queryable.

        Raises DruidTaskFailedError when the task FAILED (its message holds the full errorMsg, row stats and first
        unparseable events), HandoffNeverError, DruidEmptyIngestionError (nothing published, unless ``allow_empty``;
        its subclass DruidEmptyInputError before any submit when a dropExisting replace's input is empty),
        DruidWaitTimeoutError, DruidMayHavePublishedError (see ``ensure_submitted``). ``handoff_timeout=None`` stops
        at SUCCESS.
        """
        rule = check_after_failed_publish(after_failed_publish)
        plan = as_plan(spec, idempotency_key=idempotency_key)
        op = ingest_op(plan, task_timeout=task_timeout, handoff_timeout=handoff_timeout, schedule=schedule,
                       on_never=on_never, allow_empty=allow_empty, clock=self.clock, memory=self._memory(True),
                       after_failed_publish=rule)
        return self._run(op, on_progress)

    @overload
    def handoff_target(
        self: ClientFacade[SyncMode], task_id: str, datasource: str, intervals: list[str], append: bool = False,
        version_ceiling: str | None = None,
    ) -> HandoffTarget: ...
    @overload
    def handoff_target(
        self: ClientFacade[AsyncMode], task_id: str, datasource: str, intervals: list[str], append: bool = False,
        version_ceiling: str | None = None,
    ) -> Awaitable[HandoffTarget]: ...
    def handoff_target(
        self, task_id: str, datasource: str, intervals: list[str], append: bool = False,
        version_ceiling: str | None = None,
    ) -> Any:
        """HandoffTarget for a SUCCESS task (reads its status and report once).

        Pass the ``version_ceiling`` of the status ``wait_for_task`` returned: it tells this task's segment
        version from a later replace's. Raises DruidUsageError when ``datasource`` is not the task's own.
        """
        return self._run(gate.handoff_target(task_id, datasource, intervals, append, version_ceiling))

    @overload
    def check_handoff(self: ClientFacade[SyncMode], target: HandoffTarget) -> HandoffResult: ...
    @overload
    def check_handoff(self: ClientFacade[AsyncMode], target: HandoffTarget) -> Awaitable[HandoffResult]: ...
    def check_handoff(self, target: HandoffTarget) -> Any:
        """HandoffResult of one look at metadata, the served inventory and the Broker."""
        return self._run(gate.check_handoff(target))

    @overload
    def segment_write(
        self: ClientFacade[SyncMode], plan: SegmentWritePlan, timeout: float = DEFAULT_HANDOFF_TIMEOUT,
        schedule: PollSchedule | None = None, on_progress: ProgressSink | None = None,
    ) -> SegmentWriteResult: ...
    @overload
    def segment_write(
        self: ClientFacade[AsyncMode], plan: SegmentWritePlan, timeout: float = DEFAULT_HANDOFF_TIMEOUT,
        schedule: PollSchedule | None = None, on_progress: ProgressSink | None = None,
    ) -> Awaitable[SegmentWriteResult]: ...
    def segment_write(
        self, plan: SegmentWritePlan, timeout: float = DEFAULT_HANDOFF_TIMEOUT, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Any:
        """A segment write (a drop): the plan's one request, then the wait for the state it wants
        (``ops/segment_write.py``)."""
        return self._run(writes.segment_write(plan, timeout, schedule, self.clock), on_progress)

    @overload
    def write_segments(self: ClientFacade[SyncMode], plan: SegmentWritePlan) -> int: ...
    @overload
    def write_segments(self: ClientFacade[AsyncMode], plan: SegmentWritePlan) -> Awaitable[int]: ...
    def write_segments(self, plan: SegmentWritePlan) -> Any:
        """The write's first half (what an operator does before it defers): the count of segments changed."""
        return self._run(writes.write_segments(plan))

    @overload
    def watch_segment_state(
        self: ClientFacade[SyncMode], datasource: str, interval: str, name: str, wants_served: bool, marked: int,
        timeout: float, schedule: PollSchedule | None = None, on_progress: ProgressSink | None = None, *,
        allow_empty: bool = False,
    ) -> SegmentWriteResult: ...
    @overload
    def watch_segment_state(
        self: ClientFacade[AsyncMode], datasource: str, interval: str, name: str, wants_served: bool, marked: int,
        timeout: float, schedule: PollSchedule | None = None, on_progress: ProgressSink | None = None, *,
        allow_empty: bool = False,
    ) -> Awaitable[SegmentWriteResult]: ...
    def watch_segment_state(
        self, datasource: str, interval: str, name: str, wants_served: bool, marked: int, timeout: float,
        schedule: PollSchedule | None = None, on_progress: ProgressSink | None = None, *, allow_empty: bool = False,
    ) -> Any:
        """The write's second half: until ``interval`` is served (``wants_served``) or unserved (a trigger's wait;
        ``name`` and ``marked`` only go into its lines and result; ``allow_empty`` as the plan's)."""
        op = writes.watch_segment_state(datasource, interval, name, wants_served, marked, self.clock() + timeout,
                                        schedule, self.clock, allow_empty=allow_empty)
        return self._run(op, on_progress)

    @overload
    def served_changes(
        self: ClientFacade[SyncMode], datasource: str, window: str | None = None, cursor: WatchCursor | None = None,
        from_now: bool = False,
    ) -> ChangeBatch: ...
    @overload
    def served_changes(
        self: ClientFacade[AsyncMode], datasource: str, window: str | None = None, cursor: WatchCursor | None = None,
        from_now: bool = False,
    ) -> Awaitable[ChangeBatch]: ...
    def served_changes(self, datasource: str, window: str | None = None, cursor: WatchCursor | None = None,
                       from_now: bool = False) -> Any:
        """ChangeBatch of one look: what changed in what ``datasource`` serves in ``window`` (all time when None)
        since ``cursor``, and the cursor for the next look. Without a cursor, everything served, or nothing when
        ``from_now`` (``ops.first_batch``). One request when nothing changed, two when something did
        (``ops/watch/look.py``)."""
        return self._run(watch.served_changes(datasource, window, cursor, from_now))

    @overload
    def watch_task(
        self: ClientFacade[SyncMode], task_id: str, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, report_every: float = waits.DEFAULT_REPORT_EVERY,
        ceiling: str | None = None, predict: bool = True,
    ) -> TaskOutcome: ...
    @overload
    def watch_task(
        self: ClientFacade[AsyncMode], task_id: str, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, report_every: float = waits.DEFAULT_REPORT_EVERY,
        ceiling: str | None = None, predict: bool = True,
    ) -> Awaitable[TaskOutcome]: ...
    def watch_task(
        self, task_id: str, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, report_every: float = waits.DEFAULT_REPORT_EVERY,
        ceiling: str | None = None, predict: bool = True,
    ) -> Any:
        """TaskOutcome (success, failed or timeout) after at most ``timeout`` seconds (0: one look); progress
        to ``on_progress``. ``ceiling``: a lock ceiling an earlier look already found. ``predict``: plan the polls
        from the datasource's recent task durations (``schedule.py``); False keeps to ``schedule``."""
        op = waits.watch_task(task_id, self.clock() + timeout, schedule, self.clock, report_every, ceiling,
                              self._memory(predict))
        return self._run(op, on_progress)

    @overload
    def wait_for_task(
        self: ClientFacade[SyncMode], task_id: str, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True,
    ) -> TaskStatus: ...
    @overload
    def wait_for_task(
        self: ClientFacade[AsyncMode], task_id: str, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True,
    ) -> Awaitable[TaskStatus]: ...
    def wait_for_task(
        self, task_id: str, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True,
    ) -> Any:
        """TaskStatus once SUCCESS or FAILED (``version_ceiling`` set when its lock was seen);
        DruidWaitTimeoutError after ``timeout`` seconds."""
        op = waits.watch_task(task_id, self.clock() + timeout, schedule, self.clock, memory=self._memory(predict))
        return self._run(_settled_task(op), on_progress)

    @overload
    def watch_handoff(
        self: ClientFacade[SyncMode], target: HandoffTarget, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True,
    ) -> HandoffOutcome: ...
    @overload
    def watch_handoff(
        self: ClientFacade[AsyncMode], target: HandoffTarget, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True,
    ) -> Awaitable[HandoffOutcome]: ...
    def watch_handoff(
        self, target: HandoffTarget, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True,
    ) -> Any:
        """HandoffOutcome (success, never or timeout) after at most ``timeout`` seconds. Its looks are the core's
        handoff looks from the task's end (``ops/handoff_wait.py``); ``predict``: plan them from the handoff
        delays this client's memory kept for the datasource (False: the fixed window, nothing learned)."""
        op = handoff_wait.watch_handoff(target, self.clock() + timeout, schedule, self.clock, self._memory(predict))
        return self._run(op, on_progress)

    @overload
    def wait_for_handoff(
        self: ClientFacade[SyncMode], target: HandoffTarget, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, on_never: str = "fail",
        allow_empty: bool = True, predict: bool = True,
    ) -> HandoffResult: ...
    @overload
    def wait_for_handoff(
        self: ClientFacade[AsyncMode], target: HandoffTarget, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, on_never: str = "fail",
        allow_empty: bool = True, predict: bool = True,
    ) -> Awaitable[HandoffResult]: ...
    def wait_for_handoff(
        self, target: HandoffTarget, timeout: float, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, on_never: str = "fail",
        allow_empty: bool = True, predict: bool = True,
    ) -> Any:
        """HandoffResult once loaded/nothing/superseded (or never, with ``on_never="pass"``), on the looks of
        :meth:`watch_handoff`.

        Raises HandoffNeverError for zero-replica segments by default, DruidWaitTimeoutError after ``timeout``;
        with ``allow_empty=False``, DruidEmptyIngestionError when the task published nothing.
        """
        check_on_never(on_never)
        op = handoff_wait.watch_handoff(target, self.clock() + timeout, schedule, self.clock, self._memory(predict))
        return self._run(_settled_handoff(op, on_never, allow_empty), on_progress)

    @overload
    def watch_ingestion(
        self: ClientFacade[SyncMode], task_id: str, datasource: str, intervals: list[str], append: bool, *,
        task_deadline: float, handoff_timeout: float | None, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True, submitted_at: float | None = None,
    ) -> IngestionOutcome: ...
    @overload
    def watch_ingestion(
        self: ClientFacade[AsyncMode], task_id: str, datasource: str, intervals: list[str], append: bool, *,
        task_deadline: float, handoff_timeout: float | None, schedule: PollSchedule | None = None,
        on_progress: ProgressSink | None = None, predict: bool = True, submitted_at: float | None = None,
    ) -> Awaitable[IngestionOutcome]: ...
    def watch_ingestion(
        self, task_id: str, datasource: str, intervals: list[str], append: bool, *, task_deadline: float,
        handoff_timeout: float | None, schedule: PollSchedule | None = None, on_progress: ProgressSink | None = None,
        predict: bool = True, submitted_at: float | None = None,
    ) -> Any:
        """IngestionOutcome of the task wait then the handoff wait (``task_deadline``: absolute epoch seconds;
        ``handoff_timeout``: seconds after the task ended, None to skip the handoff; ``submitted_at``: when the
        caller submitted the task, its first look then comes ``poll_interval`` after)."""
        op = waits.watch_ingestion(task_id, datasource, intervals, append, task_deadline, handoff_timeout, schedule,
                                   self.clock, memory=self._memory(predict), submitted_at=submitted_at)
        return self._run(op, on_progress)

    def _memory(self, predict: bool) -> WaitMemory | None:
        """This client's wait memory (durations, handoff delays), or None to keep the fixed schedule."""
        return self.wait_memory if predict else None
