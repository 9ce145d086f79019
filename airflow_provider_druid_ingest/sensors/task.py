"""``DruidTaskSensor``: wait for an existing Druid task (e.g. from ``DruidSubmitOperator``) to finish.

A sensor only waits: retrying it cannot resubmit a FAILED Druid task, so FAILED fails the sensor without
retries (``AirflowFailException``) with the report summary in the exception. Re-run the submit task (or use the
one-shot ``DruidIngestOperator``) to ingest again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseSensorOperator
from airflow.sdk.exceptions import AirflowException, AirflowFailException
from druid_ingest.errors import DruidError
from druid_ingest.ops import PollSchedule

from airflow_provider_druid_ingest.common.run_context import rendered
from airflow_provider_druid_ingest.common.settings import (
    DEFER_GRACE,
    default_deferrable,
    http_retry_arg,
    wait_kwargs,
)
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import XCOM_VERSION_CEILING, DruidTaskLink, push_task_refs

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.ops import TaskOutcome
    from druid_ingest.wire import RetryPolicy

__all__ = ["DruidTaskSensor"]


class DruidTaskSensor(BaseSensorOperator):
    """Succeed when the Druid task is SUCCESS; fail (no retry) when it is FAILED.

    :param druid_task_id: templated, typically ``"{{ ti.xcom_pull(task_ids='submit') }}"``
    :param druid_conn_id: the ``druid_cluster`` connection
    :param deferrable: wait in the triggerer (default True; ``[druid_ingest] default_deferrable = False``
        turns that off); False uses ``mode`` (``poke`` or ``reschedule``) with ``poke_interval``
    :param poll_interval: deferrable mode: first delay between polls, growing 1.5x up to ``max_poll_interval``
    :param detect_within: deferrable mode: detection-latency target, seconds (default None: none): the Druid
        task's end is seen within it (at p95 of the datasource's usual run times when its history is known;
        always without), with as few status reads as that allows. It must be >= ``poll_interval``; it replaces
        ``max_poll_interval`` as the cap of the delays while the task may end (``max_poll_interval`` still caps
        the backoff past every known run time). See docs/waiting.md
    :param shutdown_on_kill: shut the Druid task down when a user kills this sensor (default False: the
        sensor only watches a task that another task owns)
    :param http_retry: a core ``RetryPolicy`` for each HTTP call to Druid (not Airflow's
        ``retry_policy``, which decides task retries) (default: the core's)

    Pushes ``druid_task_url`` so the "Druid task" link works on the sensor too, and on SUCCESS
    ``druid_version_ceiling`` (when the wait saw the task holding its lock) for ``DruidHandoffSensor``'s
    ``version_ceiling``. Returns the task id. On FAILED the exception holds the full errorMsg, row stats and
    first unparseable events.
    """

    template_fields: Sequence[str] = ("druid_task_id",)
    operator_extra_links = (DruidTaskLink(),)
    ui_color = "#4fc3f7"

    def __init__(
        self,
        *,
        druid_task_id: str,
        druid_conn_id: str = DruidHook.default_conn_name,
        deferrable: bool | None = None,
        poll_interval: float = 5.0,
        max_poll_interval: float = 60.0,
        detect_within: float | None = None,
        shutdown_on_kill: bool = False,
        http_retry: RetryPolicy | None = None,
        **kwargs: Any,
    ) -> None:
        self.http_retry = http_retry_arg(type(self).__name__, http_retry, kwargs)
        super().__init__(**kwargs)
        self.druid_task_id = druid_task_id
        self.druid_conn_id = druid_conn_id
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self.detect_within = detect_within
        self._schedule  # noqa: B018 - checks detect_within against poll_interval now, at DAG parse time
        self.shutdown_on_kill = shutdown_on_kill
        self._ceiling: str | None = None  # kept between pokes (reschedule mode starts afresh)

    @property
    def _schedule(self) -> PollSchedule:
        return PollSchedule(self.poll_interval, self.max_poll_interval, detect_within=self.detect_within)

    @cached_property
    def hook(self) -> DruidHook:
        return DruidHook(druid_conn_id=self.druid_conn_id, retry=self.http_retry)

    def _task_id(self) -> str:
        value = rendered(self.druid_task_id)
        if value is None:
            raise AirflowFailException("druid_task_id rendered empty: did the submit task push its XCom?")
        return value

    def poke(self, context: Context) -> bool:
        """One look (one status call, and the live report while it runs)."""
        from druid_ingest.ops import ProgressLines

        from airflow_provider_druid_ingest.common import results

        druid_task_id = self._task_id()
        try:
            with self.hook.get_client() as client:
                if context.get("ti") is not None:
                    url = client.config.console_task_url(druid_task_id)
                    push_task_refs(context, druid_task_id, url, push_id=False)
                outcome = client.watch_task(
                    druid_task_id, 0.0, on_progress=ProgressLines(self.log.info, druid_task_id), ceiling=self._ceiling
                )
        except DruidError as exc:  # unknown id, 401/403, wrong URL: waiting cannot help
            results.raise_for(exc)
        self._ceiling = outcome.version_ceiling
        if outcome.kind == "timeout":
            return False
        self._finish(context, outcome)
        return True

    def execute(self, context: Context) -> Any:
        if not self.deferrable:
            super().execute(context)
            return self._task_id()
        if self.poke(context):  # one cheap look first: no deferral when already done
            return self._task_id()
        from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

        schedule = self._schedule
        self.defer(
            trigger=DruidTaskTrigger(
                druid_task_id=self._task_id(),
                shutdown_on_kill=self.shutdown_on_kill,
                **wait_kwargs(self.druid_conn_id, self.timeout, schedule, self.http_retry),
            ),
            method_name="execute_complete",
            timeout=timedelta(seconds=self.timeout + DEFER_GRACE),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> str:
        from druid_ingest.ops import TaskOutcome

        try:
            outcome = TaskOutcome.from_dict(event or {})
        except ValueError as exc:
            raise AirflowException(f"unexpected trigger event: {exc}") from None
        return self._finish(context, outcome)

    def _finish(self, context: Context, outcome: TaskOutcome) -> str:
        from airflow_provider_druid_ingest.common import results

        if outcome.kind == "failed" and outcome.report is not None:
            self.log.error("Druid task %s report:\n%s", outcome.task_id, outcome.report.format())
        druid_task_id = results.task_result(outcome, sensor=True)
        (self.log.warning if outcome.has_druid_note else self.log.info)("%s", outcome.message)
        if outcome.version_ceiling and context.get("ti") is not None:
            context["ti"].xcom_push(key=XCOM_VERSION_CEILING, value=outcome.version_ceiling)
        return druid_task_id
