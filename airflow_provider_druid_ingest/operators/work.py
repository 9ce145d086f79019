"""``DruidWorkOperator``: one Airflow task from a plan to queryable data, for any kind of Druid work.

Flow: plan (build + check, no HTTP) -> ``ensure_submitted`` -> push ``druid_task_id``/``druid_task_url`` ->
one look at the whole wait (``watch_ingestion`` with deadlines that have passed: one status poll, one gate check)
-> done, or one deferral on :class:`DruidIngestionTrigger`, which waits for the task and then its handoff ->
``execute_complete``. The task succeeds only when the data is queryable, so an Asset event in ``outlets`` means
"queryable". An Airflow retry re-runs ``execute``: ``ensure_submitted`` adopts a running/succeeded Druid task and
submits attempt ``_r<n>`` after a FAILED one. With ``deferrable=False`` the same wait runs in the worker.

Only the plan differs between the kinds of work: a subclass adds its fields and ``build_plan``
(``DruidIngestOperator``: a native spec; ``DruidMsqIngestOperator``: an MSQ statement).
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from airflow.sdk.exceptions import AirflowException, AirflowTaskTimeout, TaskDeferralTimeout
from druid_ingest.errors import DruidError
from druid_ingest.ops import DEFAULT_HANDOFF_TIMEOUT, DEFAULT_TASK_TIMEOUT, PollSchedule, check_on_never

from airflow_provider_druid_ingest.common.assets import default_outlets, event_extra, record_event, served_by
from airflow_provider_druid_ingest.common.settings import DEFER_GRACE, default_deferrable, wait_kwargs
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import XCOM_SERVED_BY, XCOM_TASK_ID, push_task_refs
from airflow_provider_druid_ingest.operators.plan_operator import DruidPlanOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.clients import DruidClient
    from druid_ingest.ops import HandoffOutcome, IngestionOutcome, NothingToCompact, TaskOutcome
    from druid_ingest.planning import Plan

__all__ = ["DruidWorkOperator"]
# DAG files import this module at parse time: the waits, outcomes and the trigger (airflow.triggers.base alone
# costs ~8 ms) are imported inside the methods that a running task calls.


class DruidWorkOperator(DruidPlanOperator):
    """Base of the one-shot operators (not meant to be used directly): do the plan's work and finish only when
    the new data is queryable. Takes the parameters of
    :class:`~airflow_provider_druid_ingest.operators.plan_operator.DruidPlanOperator` and:

    :param wait_for_handoff: also wait until the segments are served (default True). With False the task
        succeeds when the Druid task does, before the data is queryable.
    :param append: the handoff gate's append mode; default: the plan's
    :param on_never: ``"fail"`` (default) or ``"pass"`` when load rules mean the segments will never load
    :param allow_empty: succeed when the Druid task published nothing (its input had no rows: a holiday); by
        default that fails, with Druid's message, since a missing input folder would otherwise go green
    :param task_timeout: seconds to wait for the Druid task (default 12 h)
    :param handoff_timeout: seconds to wait, after the task ended, for the segments to be served (default 1 h)
    :param poll_interval: first poll delay, growing 1.5x per poll up to ``max_poll_interval``
    :param detect_within: detection-latency target, seconds (default None: none): the Druid task's end is seen
        within it (at p95 of the datasource's usual run times when its history is known; always without), with
        as few status reads as that allows. It must be >= ``poll_interval``; it replaces ``max_poll_interval`` as
        the cap of the delays while the task may end (``max_poll_interval`` still caps the backoff past every
        known run time). See docs/waiting.md
    :param check_every: with the datasource's history, the longest silence before the task's usual end (default
        600 s): each such safety look sees a mid-run failure and logs progress; None: no look before the usual end
    :param shutdown_on_kill: shut the Druid task down when this Airflow task is killed (default True)
    :param shutdown_on_timeout: shut it down on ``task_timeout`` or ``execution_timeout`` (default True);
        with False a retry adopts the still-running task
    :param deferrable: wait in the triggerer (default True, see ``[druid_ingest] default_deferrable``); False
        waits in the worker

    ``pool_slots`` defaults to the work's peak Druid task slots. To cap concurrent ingestion with a pool, create
    it with ``--include-deferred``: deferred tasks hold no slot otherwise. ``outlets`` defaults to
    ``[Asset("druid://<druid_conn_id>/<datasource>")]`` when the datasource is static and ``wait_for_handoff`` is
    on. Its event carries ``druid_task_id``, ``interval`` (``start/end``), ``intervals``, ``handoff`` (the gate's
    state), ``queryable``, ``served_by_task`` and ``superseded_by`` in its extra (see ``common/assets.py``:
    ``superseded`` passes the gate, but queries read the later task's data, so ``queryable`` is false there).
    XCom ``druid_served_by_task`` names that task too, for a downstream row count. In a partitioned run (Airflow
    3.3 partitioned timetables) the event is the run's partition (``partition_key`` in the extra and on the
    event); such a run has no data interval, so pass ``intervals=`` (docs/airflow-3.3.md).
    """

    def __init__(
        self,
        *,
        wait_for_handoff: bool = True,
        append: bool | None = None,
        on_never: str = "fail",
        allow_empty: bool = False,
        task_timeout: float = DEFAULT_TASK_TIMEOUT,
        handoff_timeout: float = DEFAULT_HANDOFF_TIMEOUT,
        poll_interval: float = 5.0,
        max_poll_interval: float = 60.0,
        detect_within: float | None = None,
        check_every: float | None = 600.0,
        shutdown_on_kill: bool = True,
        shutdown_on_timeout: bool = True,
        deferrable: bool | None = None,
        pool_slots: int | None = None,
        outlets: Any = None,
        **kwargs: Any,
    ) -> None:
        if outlets is None:  # green without the gate is not "queryable": no default Asset then (too early)
            outlets = self._default_outlets({**kwargs, "wait_for_handoff": wait_for_handoff})
        super().__init__(pool_slots=pool_slots or self._default_pool_slots(kwargs), outlets=outlets,
                         allow_empty=allow_empty, **kwargs)
        self.wait_for_handoff = wait_for_handoff
        self.append = append
        self.on_never = check_on_never(on_never)
        self.task_timeout = float(task_timeout)
        self.handoff_timeout = float(handoff_timeout)
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self.detect_within = detect_within
        self.check_every = check_every
        self._schedule  # noqa: B018 - checks detect_within against poll_interval now, at DAG parse time
        self.shutdown_on_kill = shutdown_on_kill
        self.shutdown_on_timeout = shutdown_on_timeout
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self._druid_task_id: str | None = None
        self._timed_out = False

    @classmethod
    def partial(cls, **kwargs: Any) -> Any:
        """Airflow's ``partial`` (dynamic task mapping), with ``pool_slots`` defaulted as ``__init__`` does: a mapped
        task's instances are scheduled with the partial's value, before any operator is built."""
        if kwargs.get("pool_slots") is None:
            kwargs["pool_slots"] = cls._default_pool_slots(kwargs)
        if kwargs.get("outlets") is None:
            kwargs["outlets"] = cls._default_outlets(kwargs)
        return super().partial(**kwargs)

    @classmethod
    def _default_pool_slots(cls, kwargs: dict[str, Any]) -> int:
        """``pool_slots`` when not given, from the constructor's keywords (before any plan exists)."""
        return 1

    @classmethod
    def _default_outlets(cls, kwargs: dict[str, Any]) -> list[Any]:
        if not kwargs.get("wait_for_handoff", True):
            return []
        conn_id = kwargs.get("druid_conn_id") or DruidHook.default_conn_name
        return default_outlets(kwargs.get("spec"), kwargs.get("datasource"), conn_id)

    def execute(self, context: Context) -> str:
        plan = self.plan(context)  # no HTTP before the spec is valid
        try:
            with self.hook.get_client() as client:
                self._check_capacity(client, plan)
                outcome = self.ensure(client, plan)
                submitted_at = time.time() if outcome.action == "submitted" else None
                self._druid_task_id = outcome.task_id
                push_task_refs(context, outcome.task_id, client.config.console_task_url(outcome.task_id))
                if self.deferrable and outcome.action == "submitted":
                    look = None  # just submitted: it cannot have ended yet, so no look before deferring
                else:
                    look = self._watch(client, plan, outcome.task_id, wait=not self.deferrable,
                                       submitted_at=submitted_at)
        except AirflowTaskTimeout:  # execution_timeout: the runner calls on_kill() next
            self._timed_out = True
            raise
        except DruidError as exc:
            from airflow_provider_druid_ingest.common.results import raise_for

            raise_for(exc)
        if look is not None and (not self.deferrable or look.kind != "timeout"):  # ended: no deferral
            return self._finish(look, context, plan)
        from airflow_provider_druid_ingest.triggers.ingestion import DruidIngestionTrigger

        self.log.info("Waiting in the triggerer for Druid task %s%s", outcome.task_id,
                      f": {look.message}" if look is not None else "")
        self.defer(
            trigger=DruidIngestionTrigger(
                outcome.task_id,
                datasource=plan.datasource,
                intervals=list(plan.intervals),
                append=self._append(plan),
                handoff_timeout=self._handoff_timeout(plan),
                shutdown_on_kill=self.shutdown_on_kill,
                submitted_at=submitted_at,
                **wait_kwargs(self.druid_conn_id, self._remaining(self.task_timeout), self._schedule,
                                      self.http_retry),
            ),
            method_name="execute_complete",
            timeout=timedelta(seconds=self._remaining(self.task_timeout) + self.handoff_timeout + DEFER_GRACE),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> str:
        """Resumed by the trigger's one event (both waits)."""
        from druid_ingest.ops import IngestionOutcome

        try:
            outcome = IngestionOutcome.from_dict(event or {})
        except ValueError as exc:
            raise AirflowException(f"unexpected trigger event: {exc}") from None
        self._druid_task_id = self._lineage_task_id = outcome.task.task_id
        # the first line of ours after a resume: a log that ends before it stopped in Airflow's start-up
        # (its supervisor could not reach the Execution API: docs/deployment.md §5)
        self.log.info("Resumed from the triggerer: Druid task %s %s%s", outcome.task.task_id, outcome.task.kind,
                      f", handoff {outcome.handoff.kind}" if outcome.handoff is not None else "")
        if self._lineage_plan is None:  # a fresh process after the deferral: re-plan (pure) for the lineage
            self.plan(context, log_warnings=False)
        return self._finish(outcome, context)

    # ---- the wait, in the worker or as one look -------------------------------------------------------

    def _watch(
        self, client: DruidClient, plan: Plan, druid_task_id: str, *, wait: bool, submitted_at: float | None = None
    ) -> IngestionOutcome:
        """The whole wait in this worker (``wait``), or one look: deadlines already passed = one poll each.
        ``submitted_at``: just submitted, so the first look comes ``poll_interval`` later (the core's rule)."""
        from druid_ingest.ops import ProgressLines

        task_deadline = time.time() + (self._remaining(self.task_timeout) if wait else 0.0)
        return client.watch_ingestion(
            druid_task_id, plan.datasource, list(plan.intervals), self._append(plan), task_deadline=task_deadline,
            handoff_timeout=None if not self._gated(plan) else self.handoff_timeout if wait else 0.0,
            schedule=self._schedule, on_progress=ProgressLines(self.log.info, druid_task_id),
            submitted_at=submitted_at,
        )

    def _finish(self, outcome: IngestionOutcome, context: Context, plan: Plan | None = None) -> str:
        from airflow_provider_druid_ingest.common.results import handoff_result, task_result

        task = outcome.task
        if task.report is not None:
            self.log.info("%s", task.report.format())
        if task.has_druid_note:
            self.log.warning("%s", task.message)  # Druid's note on a SUCCESS (e.g. "No valid rows ...")
        if task.kind == "timeout" and self.shutdown_on_timeout:
            self._shutdown(task.task_id, "wait timed out")
        plan = plan or self._lineage_plan or self.plan(context, log_warnings=False)  # pure: no HTTP
        empty = self._nothing_to_compact(plan, task)
        if empty is not None:  # green by the core's rule (allow_empty): nothing written, so no gate, no event
            self._druid_task_id = None
            self.log.warning("%s", empty.line)
            return task.task_id
        druid_task_id = task_result(task, sensor=False)
        self._druid_task_id = None  # finished: nothing to shut down any more
        if not self._gated(plan):
            return druid_task_id
        if outcome.handoff is None:
            raise AirflowException(f"Druid task {druid_task_id} succeeded but the handoff wait did not run")
        result = handoff_result(outcome.handoff, self.on_never, self.log, sensor=False, allow_empty=self.allow_empty)
        self._push_served_by(context, druid_task_id, outcome.handoff)
        self._record_asset_event(context, plan, druid_task_id, outcome.handoff)  # reached only once green
        self.log.info("Druid task %s done: handing Airflow the return value (XCom return_value) and the Asset "
                      "event; Airflow sends both, and the success, through the Execution API", druid_task_id)
        return result

    def _nothing_to_compact(self, plan: Plan, task: TaskOutcome) -> NothingToCompact | None:
        """The core's verdict on a compaction Druid failed for want of segments (``ops.nothing_to_compact``): green
        with ``allow_empty``, else its error, fatal (a retry would adopt the same FAILED task)."""
        from druid_ingest.ops import nothing_to_compact

        try:
            return nothing_to_compact(plan, task, self.allow_empty)
        except DruidError as exc:
            from airflow_provider_druid_ingest.common.results import raise_for

            raise_for(exc)

    def _push_served_by(self, context: Context, druid_task_id: str, handoff: HandoffOutcome) -> None:
        """XCom ``druid_served_by_task``: whose data a query of the interval reads now (a row count must say)."""
        state: str = handoff.result.state if handoff.result is not None else handoff.kind
        served = served_by(druid_task_id, state, handoff.result)
        if state == "superseded":
            self.log.warning("Druid task %s was superseded: the served version is Druid task %s's (%s), not this "
                             "task's; queries of the interval read that task's rows", druid_task_id,
                             served or "unknown", handoff.result.superseded_by if handoff.result else "?")
        if context.get("ti") is not None:
            self.log.info("Pushing XCom %s=%s (through the Execution API)", XCOM_SERVED_BY, served)
            context["ti"].xcom_push(key=XCOM_SERVED_BY, value=served)

    def _record_asset_event(
        self, context: Context, plan: Plan | None, druid_task_id: str, handoff: HandoffOutcome
    ) -> None:
        """The Druid task id and interval(s) on the event of our Druid asset (resumed: re-plan, no HTTP)."""
        if not any(getattr(o, "uri", "").startswith("druid://") for o in self.outlets):
            return
        plan = plan or self.plan(context, log_warnings=False)
        state: str = handoff.result.state if handoff.result is not None else handoff.kind
        extra = event_extra(conn_id=self.druid_conn_id, datasource=plan.datasource, intervals=plan.intervals,
                            druid_task_id=druid_task_id, handoff=state, queryable=state == "loaded",
                            result=handoff.result)
        for uri in record_event(context, self.outlets, extra):
            self.log.info("Asset event %s: %s", uri, extra)

    # ---- kill and timeouts ----------------------------------------------------------------------------

    def on_kill(self) -> None:
        """Running in a worker (submitting, or ``deferrable=False``): shut the Druid task down.

        Deferred tasks are killed through :meth:`DruidIngestionTrigger.on_kill` instead.
        """
        if not self._druid_task_id:
            return
        if self._timed_out and not self.shutdown_on_timeout:
            self.log.info("execution_timeout: leaving Druid task %s running (shutdown_on_timeout=False)",
                          self._druid_task_id)
            return
        if not self._timed_out and not self.shutdown_on_kill:
            return
        self._shutdown(self._druid_task_id, "execution_timeout" if self._timed_out else "task killed")

    def resume_execution(self, next_method: str, next_kwargs: dict[str, Any] | None, context: Context) -> Any:
        try:
            return super().resume_execution(next_method, next_kwargs, context)
        except TaskDeferralTimeout:
            if self.shutdown_on_timeout:  # Airflow's defer timeout beat our trigger's own deadline
                druid_task_id = context["ti"].xcom_pull(task_ids=self.task_id, key=XCOM_TASK_ID)
                if druid_task_id:
                    self._shutdown(druid_task_id, "deferral timed out")
            raise

    def _shutdown(self, druid_task_id: str, reason: str) -> None:
        from druid_ingest.ops import shutdown_task

        _level, message = shutdown_task(self.hook.get_client, druid_task_id, reason)
        self.log.warning("%s", message)

    # ---- helpers --------------------------------------------------------------------------------------

    def _append(self, plan: Plan) -> bool:
        return plan.append if self.append is None else self.append

    def _gated(self, plan: Plan) -> bool:
        """Whether the task ends at the handoff gate: asked for, and the work publishes (a kill does not)."""
        return self.wait_for_handoff and plan.publishes

    def _handoff_timeout(self, plan: Plan) -> float | None:
        return self.handoff_timeout if self._gated(plan) else None

    @property
    def _schedule(self) -> PollSchedule:
        return PollSchedule(self.poll_interval, self.max_poll_interval, detect_within=self.detect_within,
                            check_every=self.check_every)

    def _remaining(self, wait: float) -> float:
        """``wait`` seconds, or less when ``execution_timeout`` ends sooner."""
        if self.execution_timeout is not None:
            return max(1.0, min(wait, self.execution_timeout.total_seconds()))
        return wait
