"""``DruidHandoffSensor``: succeed only when a SUCCESS Druid task's segments are served (queryable).

Put the Asset in ``outlets``: Airflow emits the Asset event when the task succeeds, and this sensor
succeeds only once the data is queryable (or ``on_never="pass"`` says to go on anyway).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseSensorOperator
from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout

from airflow_provider_druid_ingest.core.errors import DruidFatalError, DruidTaskFailedError
from airflow_provider_druid_ingest.core.models import HandoffTarget
from airflow_provider_druid_ingest.core.spec import spec_facts
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import DruidTaskLink, push_task_refs
from airflow_provider_druid_ingest.operators.submit import as_list, default_deferrable, default_outlets, run_intervals

if TYPE_CHECKING:
    from airflow.sdk import Context

    from airflow_provider_druid_ingest.core.models import HandoffResult

HANDOFF_STATUSES = frozenset({"success", "never", "timeout", "error"})


class DruidHandoffSensor(BaseSensorOperator):
    """Wait until the segments a SUCCESS Druid task published are served by Historicals.

    :param druid_task_id: templated, typically ``"{{ ti.xcom_pull(task_ids='submit') }}"``
    :param datasource: templated; default: the task's own datasource
    :param intervals: templated; default: the run's data interval (as the submit operator uses)
    :param version_ceiling: templated; the ``druid_version_ceiling`` XCom of the ``DruidTaskSensor`` that
        waited for the task (``"{{ ti.xcom_pull(task_ids='wait_for_task', key='druid_version_ceiling') }}"``).
        It lets the gate tell this task's segment version from a later replace's and report ``superseded``;
        without it the gate still waits for the newest version in each chunk (never early).
    :param append: the task appended (``appendToExisting``): every visible segment of the intervals must be
        served, not only a new version
    :param on_never: ``"fail"`` (default, no retry) or ``"pass"`` when load rules give the segments zero
        replicas (they will never be served)
    :param deferrable: wait in the triggerer (default True; see ``[druid_ingest] default_deferrable``)
    :param poll_interval: deferrable mode: first delay between polls, growing 1.5x up to ``max_poll_interval``

    ``outlets`` defaults to ``[Asset("druid://<druid_conn_id>/<datasource>")]`` when ``datasource`` is a literal.
    ``timeout`` (sensor) bounds the wait. The :class:`HandoffTarget` (the version floor of "this task's
    segments") is fixed once from the task's status and report, then the trigger re-evaluates it.
    """

    template_fields: Sequence[str] = ("druid_task_id", "datasource", "intervals", "version_ceiling")
    operator_extra_links = (DruidTaskLink(),)
    ui_color = "#81d4fa"

    def __init__(
        self,
        *,
        druid_task_id: str,
        datasource: str | None = None,
        intervals: list[str] | str | None = None,
        version_ceiling: str | None = None,
        append: bool = False,
        on_never: str = "fail",
        druid_conn_id: str = DruidHook.default_conn_name,
        deferrable: bool | None = None,
        poll_interval: float = 5.0,
        max_poll_interval: float = 60.0,
        outlets: Any = None,
        **kwargs: Any,
    ) -> None:
        if on_never not in ("fail", "pass"):
            raise ValueError(f"on_never must be 'fail' or 'pass', not {on_never!r}")
        if outlets is None:
            outlets = default_outlets(None, datasource, druid_conn_id)
        super().__init__(outlets=outlets, **kwargs)
        self.druid_task_id = druid_task_id
        self.datasource = datasource
        self.intervals = intervals
        self.version_ceiling = version_ceiling
        self.append = append
        self.on_never = on_never
        self.druid_conn_id = druid_conn_id
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self._target: HandoffTarget | None = None

    def _build_target(self, context: Context) -> HandoffTarget:
        if self._target is None:
            druid_task_id = (self.druid_task_id or "").strip()
            if not druid_task_id or druid_task_id == "None":
                raise AirflowFailException("druid_task_id rendered empty: did the submit task push its XCom?")
            intervals = as_list(self.intervals) or run_intervals(context)
            with DruidHook(druid_conn_id=self.druid_conn_id).get_client() as client:
                try:
                    if not intervals:  # no data interval: the intervals the task itself was given
                        intervals = spec_facts(client.task_payload(druid_task_id)).intervals
                    ceiling = (self.version_ceiling or "").strip()
                    self._target = client.handoff_target(
                        druid_task_id, self.datasource or "", intervals, self.append,
                        ceiling if ceiling and ceiling != "None" else None,
                    )
                except (DruidFatalError, DruidTaskFailedError) as exc:
                    raise AirflowFailException(str(exc)) from None
                if context.get("ti") is not None:
                    url = client.config.console_task_url(druid_task_id)
                    push_task_refs(context, druid_task_id, url, push_id=False)
            self.log.info("Handoff gate for %s: %s", druid_task_id, self._target.to_dict())
        return self._target

    def _verdict(self, result: HandoffResult, druid_task_id: str) -> bool:
        if result.done:
            self.log.info("Data of Druid task %s is queryable: %s", druid_task_id, result.detail)
            return True
        if result.state == "never":
            self._never(druid_task_id, result.detail)
            return True
        self.log.info("Handoff of Druid task %s: %s", druid_task_id, result.detail)
        return False

    def _never(self, druid_task_id: str, detail: str) -> None:
        if self.on_never == "pass":
            self.log.warning("Segments of %s will never load (on_never='pass'): %s", druid_task_id, detail)
            return
        raise AirflowFailException(f"segments of Druid task {druid_task_id} will never load: {detail}")

    def poke(self, context: Context) -> bool:
        target = self._build_target(context)
        with DruidHook(druid_conn_id=self.druid_conn_id).get_client() as client:
            result = client.check_handoff(target)
        return self._verdict(result, target.task_id)

    def execute(self, context: Context) -> Any:
        if not self.deferrable:
            super().execute(context)
            return self._build_target(context).task_id
        if self.poke(context):
            return self._build_target(context).task_id
        from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger

        self.defer(
            trigger=DruidHandoffTrigger(
                target=self._build_target(context).to_dict(),
                conn_id=self.druid_conn_id,
                end_time=time.time() + self.timeout,
                poll_interval=self.poll_interval,
                max_poll_interval=self.max_poll_interval,
            ),
            method_name="execute_complete",
            timeout=timedelta(seconds=self.timeout + 60),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> str:
        from airflow_provider_druid_ingest.triggers.task import validate_event

        event = validate_event(event, HANDOFF_STATUSES)
        druid_task_id = event["druid_task_id"]
        if event["status"] == "success":
            self.log.info("%s", event["message"])
            return druid_task_id
        if event["status"] == "never":
            self._never(druid_task_id, event["message"])
            return druid_task_id
        if event["status"] == "timeout":
            raise AirflowSensorTimeout(event["message"])
        raise AirflowException(event["message"])
