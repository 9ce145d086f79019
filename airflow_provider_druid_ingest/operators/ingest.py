"""``DruidIngestOperator``: one task from spec to queryable data (submit, wait, handoff gate).

Flow: render + validate (no HTTP) -> ``ensure_submitted`` -> push ``druid_task_id``/``druid_task_url`` ->
one status check (already terminal: no deferral) -> defer on :class:`DruidTaskTrigger` ->
``execute_task_complete`` -> build the :class:`HandoffTarget` -> one check -> defer on
:class:`DruidHandoffTrigger` -> ``execute_handoff_complete``. The task succeeds only when the data is
queryable, so an Asset event in ``outlets`` means "queryable". An Airflow retry re-runs ``execute``:
``ensure_submitted`` adopts a running/succeeded Druid task and submits attempt ``_r<n>`` after a FAILED one.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from airflow.sdk.exceptions import (
    AirflowException,
    AirflowFailException,
    AirflowTaskTimeout,
    TaskDeferralTimeout,
)

from airflow_provider_druid_ingest.core.errors import DruidError, DruidUsageError, DruidWaitTimeoutError
from airflow_provider_druid_ingest.core.retry import PollSchedule, RetryPolicy
from airflow_provider_druid_ingest.links import XCOM_TASK_ID, push_task_refs
from airflow_provider_druid_ingest.operators.submit import DruidSpecOperator, default_deferrable, default_outlets

if TYPE_CHECKING:
    from airflow.sdk import Context

    from airflow_provider_druid_ingest.core.models import HandoffResult, HandoffTarget
    from airflow_provider_druid_ingest.core.sync_client import DruidClient

HANDOFF_STATUSES = frozenset({"success", "never", "timeout", "error"})
DEFER_GRACE = 120.0  # Airflow's own defer timeout fires this long after our trigger's deadline
# Triggers are imported inside the methods: DAG files import this module at parse time, and
# airflow.triggers.base costs ~8 ms that only a running task needs.


def _static_slots(spec: Any) -> int:
    if not isinstance(spec, dict):
        return 1
    from airflow_provider_druid_ingest.core.spec import task_slots

    try:
        return max(1, task_slots(spec))
    except Exception:
        return 1


def handoff_event(result: HandoffResult, target: HandoffTarget) -> dict[str, Any]:
    status = "success" if result.done else "never" if result.state == "never" else "timeout"
    message = f"{target.datasource}: {result.state}: {result.detail}"
    return {"status": status, "druid_task_id": target.task_id, "message": message, "result": result.to_dict()}


class DruidIngestOperator(DruidSpecOperator):
    """Ingest into Druid and finish only when the new data is queryable.

    Takes every parameter of :class:`~airflow_provider_druid_ingest.operators.submit.DruidSpecOperator`
    (``spec``, ``datasource``, ``intervals``, ``input_locations``, ``idempotency_key``, ``druid_conn_id``) and:

    :param wait_for_handoff: also wait until the segments are served (default True). With False the task
        succeeds when the Druid task does, before the data is queryable.
    :param append: the handoff gate's append mode; default: the spec's ``ioConfig.appendToExisting``
    :param on_never: ``"fail"`` (default) or ``"pass"`` when load rules mean the segments will never load
    :param task_timeout: seconds to wait for the Druid task (default 12 h)
    :param handoff_timeout: seconds to wait for the segments to be served (default 1 h)
    :param poll_interval: first poll delay, growing 1.5x per poll up to ``max_poll_interval``
    :param shutdown_on_kill: shut the Druid task down when this Airflow task is killed (default True)
    :param shutdown_on_timeout: shut it down on ``task_timeout`` or ``execution_timeout`` (default True);
        with False a retry adopts the still-running task
    :param deferrable: wait in the triggerer (default True, see ``default_deferrable``); False polls in the worker
    :param retry: a ``RetryPolicy`` for each HTTP call

    ``pool_slots`` defaults to the spec's peak Druid task slots (``k+1`` for a parallel ``index_parallel`` with
    ``maxNumConcurrentSubTasks=k``, else 1) when ``spec`` is a dict; 1 for a template file. To cap concurrent
    ingestion with a pool, create it with ``--include-deferred``: deferred tasks hold no slot otherwise.
    ``outlets`` defaults to ``[Asset("druid://<druid_conn_id>/<datasource>")]`` when the datasource is static.
    """

    def __init__(
        self,
        spec: dict[str, Any] | str,
        *,
        wait_for_handoff: bool = True,
        append: bool | None = None,
        on_never: str = "fail",
        task_timeout: float = 12 * 3600.0,
        handoff_timeout: float = 3600.0,
        poll_interval: float = 5.0,
        max_poll_interval: float = 60.0,
        shutdown_on_kill: bool = True,
        shutdown_on_timeout: bool = True,
        deferrable: bool | None = None,
        retry: RetryPolicy | None = None,
        pool_slots: int | None = None,
        outlets: Any = None,
        **kwargs: Any,
    ) -> None:
        if on_never not in ("fail", "pass"):
            raise ValueError(f"on_never must be 'fail' or 'pass', not {on_never!r}")
        if outlets is None:
            outlets = default_outlets(spec, kwargs.get("datasource"), kwargs.get("druid_conn_id"))
        super().__init__(spec=spec, pool_slots=pool_slots or _static_slots(spec), outlets=outlets, **kwargs)
        self.wait_for_handoff = wait_for_handoff
        self.append = append
        self.on_never = on_never
        self.task_timeout = float(task_timeout)
        self.handoff_timeout = float(handoff_timeout)
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self.shutdown_on_kill = shutdown_on_kill
        self.shutdown_on_timeout = shutdown_on_timeout
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.retry = retry
        self._druid_task_id: str | None = None
        self._timed_out = False

    # ---- leg 1: submit ------------------------------------------------------------------------

    def execute(self, context: Context) -> str:
        from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger, report_summary_sync, task_event

        prepared = self.prepare(context)  # no HTTP before the spec is valid
        append = prepared.append if self.append is None else self.append
        resume = {"datasource": prepared.datasource, "intervals": prepared.intervals, "append": append}
        try:
            with self._client() as client:
                outcome = self.ensure(client, prepared)
                self._druid_task_id = outcome.task_id
                push_task_refs(context, outcome.task_id, client.config.console_task_url(outcome.task_id))
                status = client.observe_task(outcome.task_id)
                if status.is_terminal:
                    self.log.info("Druid task %s is already %s: not deferring", outcome.task_id, status.state)
                    event = task_event(status, report_summary_sync(client, outcome.task_id))
                elif not self.deferrable:
                    event = self._wait_in_worker(client, outcome.task_id)
                else:
                    event = None
            if event is not None:
                return self.execute_task_complete(context, event, **resume)
        except AirflowTaskTimeout:  # execution_timeout: the runner calls on_kill() next
            self._timed_out = True
            raise
        self.defer(
            trigger=DruidTaskTrigger(
                druid_task_id=outcome.task_id,
                shutdown_on_kill=self.shutdown_on_kill,
                **self._trigger_kwargs(self.task_timeout),
            ),
            method_name="execute_task_complete",
            kwargs=resume,
            timeout=timedelta(seconds=self.task_timeout + DEFER_GRACE),
        )

    def _wait_in_worker(self, client: DruidClient, druid_task_id: str) -> dict[str, Any]:
        from airflow_provider_druid_ingest.triggers.task import make_event, report_summary_sync, task_event

        def progress(status: Any) -> None:
            summary = report_summary_sync(client, druid_task_id)
            line = summary.progress_line() if summary is not None else "no report yet"
            self.log.info("Druid task %s %s: %s", druid_task_id, status.phase, line)

        try:
            status = client.wait_for_task(druid_task_id, self._remaining(self.task_timeout), self._schedule, progress)
        except DruidWaitTimeoutError as exc:
            return make_event("timeout", druid_task_id, str(exc))
        return task_event(status, report_summary_sync(client, druid_task_id))

    # ---- leg 2: the Druid task finished ----------------------------------------------------------

    def execute_task_complete(
        self,
        context: Context,
        event: dict[str, Any] | None = None,
        datasource: str | None = None,
        intervals: list[str] | None = None,
        append: bool | None = None,
    ) -> str:
        from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
        from airflow_provider_druid_ingest.triggers.task import validate_event

        event = validate_event(event)
        druid_task_id = event["druid_task_id"]
        self._druid_task_id = druid_task_id
        if event.get("summary_text"):
            self.log.info("Druid task %s report:\n%s", druid_task_id, event["summary_text"])
        if event["status"] == "failed":
            # The message is the DruidTaskFailedError text: what on_failure_callback and alerts get.
            raise AirflowException(f"{event['message']}\n(an Airflow retry submits the next attempt)")
        if event["status"] == "timeout":
            if self.shutdown_on_timeout:
                self._shutdown(druid_task_id, "wait timed out")
            raise AirflowException(event["message"])
        if event["status"] == "error":
            raise AirflowException(event["message"])
        self.log.info("%s", event["message"])
        self._druid_task_id = None  # finished: nothing to shut down any more
        if not self.wait_for_handoff:
            return druid_task_id
        if not datasource or not intervals or append is None:
            # ``dag.test()`` (3.3.2) drops defer kwargs when it resumes with an event: re-derive them (pure, no HTTP)
            prepared = self.prepare(context)
            datasource, intervals = prepared.datasource, prepared.intervals
            append = prepared.append if self.append is None else self.append
        with self._client() as client:
            try:
                target = client.handoff_target(
                    druid_task_id, datasource, list(intervals), append, event.get("version_ceiling")
                )
            except DruidUsageError as exc:
                raise AirflowFailException(str(exc)) from None
            result = client.check_handoff(target)
            if not (result.done or result.state == "never") and not self.deferrable:
                result = self._wait_handoff_in_worker(client, target)
        if result.done or result.state == "never" or not self.deferrable:
            return self.execute_handoff_complete(context, handoff_event(result, target))
        self.log.info("Waiting for handoff of %s: %s", druid_task_id, result.detail)
        self.defer(
            trigger=DruidHandoffTrigger(target=target.to_dict(), **self._trigger_kwargs(self.handoff_timeout)),
            method_name="execute_handoff_complete",
            timeout=timedelta(seconds=self.handoff_timeout + DEFER_GRACE),
        )

    def _wait_handoff_in_worker(self, client: DruidClient, target: HandoffTarget) -> HandoffResult:
        def progress(result: HandoffResult) -> None:
            self.log.info("Handoff of Druid task %s: %s", target.task_id, result.detail)

        try:
            return client.wait_for_handoff(target, self._remaining(self.handoff_timeout), self._schedule, progress)
        except DruidWaitTimeoutError as exc:
            raise AirflowException(str(exc)) from None

    # ---- leg 3: the segments are served (or never will be) ----------------------------------------

    def execute_handoff_complete(self, context: Context, event: dict[str, Any] | None = None) -> str:
        from airflow_provider_druid_ingest.triggers.task import validate_event

        event = validate_event(event, HANDOFF_STATUSES)
        druid_task_id = event["druid_task_id"]
        if event["status"] == "success":
            self.log.info("Data of Druid task %s is queryable: %s", druid_task_id, event["message"])
            return druid_task_id
        if event["status"] == "never":
            if self.on_never == "pass":
                self.log.warning("Segments of %s never load (on_never='pass'): %s", druid_task_id, event["message"])
                return druid_task_id
            raise AirflowFailException(f"segments of Druid task {druid_task_id} will never load: {event['message']}")
        raise AirflowException(event["message"])  # timeout / error: a retry adopts the SUCCESS task and re-waits

    # ---- kill and timeouts ----------------------------------------------------------------------------

    def on_kill(self) -> None:
        """Running in a worker (submitting, or ``deferrable=False``): shut the Druid task down.

        Deferred tasks are killed through :meth:`DruidTaskTrigger.on_kill` instead.
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
        try:
            with self._client(RetryPolicy(max_attempts=2, deadline=20.0)) as client:
                client.shutdown(druid_task_id)
            self.log.info("Shut down Druid task %s (%s)", druid_task_id, reason)
        except DruidError as exc:
            self.log.warning("Could not shut down Druid task %s: %s", druid_task_id, exc)

    # ---- helpers --------------------------------------------------------------------------------------

    def _client(self, retry: RetryPolicy | None = None) -> DruidClient:
        hook = self.hook
        hook.retry = retry or self.retry
        return hook.get_client()

    @property
    def _schedule(self) -> PollSchedule:
        return PollSchedule(self.poll_interval, self.max_poll_interval)

    def _remaining(self, wait: float) -> float:
        """``wait`` seconds, or less when ``execution_timeout`` ends sooner."""
        if self.execution_timeout is not None:
            return max(1.0, min(wait, self.execution_timeout.total_seconds()))
        return wait

    def _trigger_kwargs(self, wait: float) -> dict[str, Any]:
        return {
            "conn_id": self.druid_conn_id,
            "end_time": time.time() + self._remaining(wait),
            "poll_interval": self.poll_interval,
            "max_poll_interval": self.max_poll_interval,
            "retry": self.retry.to_dict() if self.retry else None,
        }

