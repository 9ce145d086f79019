"""``DruidTaskSensor``: wait for an existing Druid task (e.g. from ``DruidSubmitOperator``) to finish.

A sensor only waits: retrying it cannot resubmit a FAILED Druid task, so FAILED fails the sensor without
retries (``AirflowFailException``) after logging the report summary. Re-run the submit task (or use the
one-shot ``DruidIngestOperator``) to ingest again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseSensorOperator
from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout

from airflow_provider_druid_ingest.core.errors import DruidFatalError
from airflow_provider_druid_ingest.core.models import FAILED, SUCCESS
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import XCOM_VERSION_CEILING, DruidTaskLink, push_task_refs
from airflow_provider_druid_ingest.operators.submit import default_deferrable

if TYPE_CHECKING:
    from airflow.sdk import Context


class DruidTaskSensor(BaseSensorOperator):
    """Succeed when the Druid task is SUCCESS; fail (no retry) when it is FAILED.

    :param druid_task_id: templated, typically ``"{{ ti.xcom_pull(task_ids='submit') }}"``
    :param druid_conn_id: the ``druid_cluster`` connection
    :param deferrable: wait in the triggerer (default True; ``[druid_ingest] default_deferrable = False``
        turns that off); False uses ``mode`` (``poke`` or ``reschedule``) with ``poke_interval``
    :param poll_interval: deferrable mode: first delay between polls, growing 1.5x up to ``max_poll_interval``
    :param shutdown_on_kill: shut the Druid task down when a user kills this sensor (default False: the
        sensor only watches a task that another task owns)

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
        shutdown_on_kill: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.druid_task_id = druid_task_id
        self.druid_conn_id = druid_conn_id
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self.shutdown_on_kill = shutdown_on_kill
        self._ceiling: str | None = None  # reschedule mode starts each poke afresh: the lock may be missed

    @staticmethod
    def _push_ceiling(context: Context, ceiling: str | None) -> None:
        if ceiling and context.get("ti") is not None:
            context["ti"].xcom_push(key=XCOM_VERSION_CEILING, value=ceiling)

    def _task_id(self) -> str:
        value = (self.druid_task_id or "").strip()
        if not value or value == "None":
            raise AirflowFailException("druid_task_id rendered empty: did the submit task push its XCom?")
        return value

    def poke(self, context: Context) -> bool:
        from airflow_provider_druid_ingest.core.reports import task_failed_error
        from airflow_provider_druid_ingest.triggers.task import report_summary_sync

        druid_task_id = self._task_id()
        hook = DruidHook(druid_conn_id=self.druid_conn_id)
        with hook.get_client() as client:
            if context.get("ti") is not None:
                push_task_refs(context, druid_task_id, client.config.console_task_url(druid_task_id), push_id=False)
            try:
                status = client.observe_task(druid_task_id, self._ceiling)
            except DruidFatalError as exc:  # unknown id, 401/403, wrong URL: waiting cannot help
                raise AirflowFailException(str(exc)) from None
            self._ceiling = status.version_ceiling
            if status.state == SUCCESS:
                self.log.info("Druid task %s SUCCESS", druid_task_id)
                self._push_ceiling(context, status.version_ceiling)
                return True
            summary = report_summary_sync(client, druid_task_id)
        if status.state == FAILED:
            if summary is not None:
                self.log.error("Druid task %s report:\n%s", druid_task_id, summary.format())
            raise AirflowFailException(str(task_failed_error(status, summary)))
        line = summary.progress_line() if summary is not None else "no report yet"
        self.log.info("Druid task %s %s: %s", druid_task_id, status.phase, line)
        return False

    def execute(self, context: Context) -> Any:
        if not self.deferrable:
            super().execute(context)
            return self._task_id()
        if self.poke(context):  # one cheap look first: no deferral when already done
            return self._task_id()
        from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

        self.defer(
            trigger=DruidTaskTrigger(
                druid_task_id=self._task_id(),
                conn_id=self.druid_conn_id,
                end_time=time.time() + self.timeout,
                poll_interval=self.poll_interval,
                max_poll_interval=self.max_poll_interval,
                shutdown_on_kill=self.shutdown_on_kill,
            ),
            method_name="execute_complete",
            timeout=timedelta(seconds=self.timeout + 60),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> str:
        from airflow_provider_druid_ingest.triggers.task import validate_event

        event = validate_event(event)
        druid_task_id = event["druid_task_id"]
        if event["status"] == "success":
            self.log.info("%s", event["message"])
            self._push_ceiling(context, event.get("version_ceiling"))
            return druid_task_id
        if event["status"] == "failed":
            if event.get("summary_text"):
                self.log.error("Druid task %s report:\n%s", druid_task_id, event["summary_text"])
            raise AirflowFailException(event["message"])
        if event["status"] == "timeout":
            raise AirflowSensorTimeout(event["message"])
        raise AirflowException(event["message"])
