"""``DruidHandoffSensor``: succeed only when a SUCCESS Druid task's segments are served (queryable).

Put the Asset in ``outlets`` (the default when ``datasource`` is a literal): Airflow emits the Asset event when the
task succeeds, and this sensor succeeds only once the data is queryable (or ``on_never="pass"`` says to go on
anyway: then the event's extra says ``queryable: false``). The extra carries the Druid task id and the interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseSensorOperator
from airflow.sdk.exceptions import AirflowException, AirflowFailException
from druid_ingest.errors import DruidError
from druid_ingest.ops import PollSchedule, check_on_never

from airflow_provider_druid_ingest.common.assets import default_outlets, event_extra, record_event, served_by
from airflow_provider_druid_ingest.common.run_context import as_list, rendered, run_intervals
from airflow_provider_druid_ingest.common.settings import (
    DEFER_GRACE,
    default_deferrable,
    http_retry_arg,
    wait_kwargs,
)
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import XCOM_SERVED_BY, DruidTaskLink, push_task_refs

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.api import HandoffTarget
    from druid_ingest.ops import HandoffOutcome
    from druid_ingest.wire import RetryPolicy

__all__ = ["DruidHandoffSensor"]


class DruidHandoffSensor(BaseSensorOperator):
    """Wait until the segments a SUCCESS Druid task published are served by Historicals.

    :param druid_task_id: templated, typically ``"{{ ti.xcom_pull(task_ids='submit') }}"``
    :param datasource: templated; default: the task's own datasource (a different one fails at once)
    :param intervals: templated; default: the run's data interval (as the submit operator uses), else the task's
    :param version_ceiling: templated; the ``druid_version_ceiling`` XCom of the ``DruidTaskSensor`` that
        waited for the task (``"{{ ti.xcom_pull(task_ids='wait_for_task', key='druid_version_ceiling') }}"``).
        It lets the gate tell this task's segment version from a later replace's and report ``superseded``;
        without it the gate still waits for the newest version in each chunk (never early).
    :param append: the task appended (``appendToExisting``): every used segment of each chunk's newest version
        must be served
    :param on_never: ``"fail"`` (default, no retry) or ``"pass"`` when load rules give the segments zero
        replicas (they will never be served)
    :param allow_empty: succeed when the task published nothing (default: fail with Druid's message)
    :param deferrable: wait in the triggerer (default True; see ``[druid_ingest] default_deferrable``)
    :param poll_interval: deferrable mode: the pace of the core's handoff looks (one a second at most through the
        usual handoff window, placed from the task's end), then the first delay of the backoff past it, growing
        1.5x up to ``max_poll_interval``. Poke and reschedule modes look once per ``poke_interval`` (Airflow's loop)
    :param http_retry: a core ``RetryPolicy`` for each HTTP call to Druid (not Airflow's
        ``retry_policy``, which decides task retries) (default: the core's)

    ``outlets`` defaults to ``[Asset("druid://<druid_conn_id>/<datasource>")]`` when ``datasource`` is a literal.
    ``timeout`` (sensor) bounds the wait. The :class:`HandoffTarget` is fixed once from the task's status and
    report, then re-evaluated on each look.
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
        allow_empty: bool = False,
        druid_conn_id: str = DruidHook.default_conn_name,
        deferrable: bool | None = None,
        poll_interval: float = 5.0,
        max_poll_interval: float = 60.0,
        http_retry: RetryPolicy | None = None,
        outlets: Any = None,
        **kwargs: Any,
    ) -> None:
        if outlets is None:
            outlets = default_outlets(None, datasource, druid_conn_id)
        self.http_retry = http_retry_arg(type(self).__name__, http_retry, kwargs)
        super().__init__(outlets=outlets, **kwargs)
        self.druid_task_id = druid_task_id
        self.datasource = datasource
        self.intervals = intervals
        self.version_ceiling = version_ceiling
        self.append = append
        self.on_never = check_on_never(on_never)
        self.allow_empty = allow_empty
        self.druid_conn_id = druid_conn_id
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self._target: HandoffTarget | None = None
        self._passed: HandoffOutcome | None = None  # the look that let the gate pass (for the Asset event)
        self._lineage_task_id: str | None = None  # the task whose data went queryable (execute_complete)

    @classmethod
    def partial(cls, **kwargs: Any) -> Any:
        """Airflow's ``partial`` (dynamic task mapping), with the default Asset outlet ``__init__`` would give: a
        mapped task's record keeps the partial's ``outlets``, and ``None`` there breaks its run."""
        if kwargs.get("outlets") is None:
            kwargs["outlets"] = default_outlets(None, kwargs.get("datasource"),
                                                kwargs.get("druid_conn_id") or DruidHook.default_conn_name)
        return super().partial(**kwargs)

    @cached_property
    def hook(self) -> DruidHook:
        return DruidHook(druid_conn_id=self.druid_conn_id, retry=self.http_retry)

    def _build_target(self, context: Context) -> HandoffTarget:
        from airflow_provider_druid_ingest.common import results

        if self._target is not None:
            return self._target
        druid_task_id = rendered(self.druid_task_id)
        if druid_task_id is None:
            raise AirflowFailException("druid_task_id rendered empty: did the submit task push its XCom?")
        intervals = as_list(self.intervals) or run_intervals(context) or []  # []: the task's own intervals
        try:
            with self.hook.get_client() as client:
                self._target = client.handoff_target(
                    druid_task_id, self.datasource or "", intervals, self.append, rendered(self.version_ceiling)
                )
                if context.get("ti") is not None:
                    push_task_refs(context, druid_task_id, client.config.console_task_url(druid_task_id),
                                   push_id=False)
        except DruidError as exc:  # FAILED task, wrong datasource, unknown id, 401/403: waiting cannot help
            results.raise_for(exc)
        self.log.info("Handoff gate for %s: %s", druid_task_id, self._target.to_dict())
        return self._target

    def poke(self, context: Context) -> bool:
        """One look at the gate."""
        from airflow_provider_druid_ingest.common import results

        target = self._build_target(context)
        try:
            with self.hook.get_client() as client:
                outcome = client.watch_handoff(target, 0.0)
        except DruidError as exc:
            results.raise_for(exc)
        if outcome.kind == "timeout":
            self.log.info("Handoff of Druid task %s: %s", target.task_id, outcome.message)
            return False
        results.handoff_result(outcome, self.on_never, self.log, sensor=True, allow_empty=self.allow_empty)
        self._passed = outcome
        return True

    def execute(self, context: Context) -> Any:
        if not self.deferrable:
            super().execute(context)
            return self._green(context, self._build_target(context), self._passed)
        if self.poke(context):
            return self._green(context, self._build_target(context), self._passed)
        from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger

        schedule = PollSchedule(self.poll_interval, self.max_poll_interval)
        self.defer(
            trigger=DruidHandoffTrigger(
                target=self._build_target(context).to_dict(),
                **wait_kwargs(self.druid_conn_id, self.timeout, schedule, self.http_retry),
            ),
            method_name="execute_complete",
            kwargs={"target": self._build_target(context).to_dict()},  # for the Asset event's extra on resume
            timeout=timedelta(seconds=self.timeout + DEFER_GRACE),
        )

    def execute_complete(
        self, context: Context, event: dict[str, Any] | None = None, target: dict[str, Any] | None = None
    ) -> str:
        from druid_ingest.api import HandoffTarget
        from druid_ingest.ops import HandoffOutcome

        from airflow_provider_druid_ingest.common import results

        try:
            outcome = HandoffOutcome.from_dict(event or {})
        except ValueError as exc:
            raise AirflowException(f"unexpected trigger event: {exc}") from None
        self._lineage_task_id = outcome.task_id
        druid_task_id = results.handoff_result(outcome, self.on_never, self.log, sensor=True,
                                               allow_empty=self.allow_empty)
        if target is not None:
            self._target = HandoffTarget.from_dict(target)  # also names the datasource for the lineage
            self._green(context, self._target, outcome)
        else:  # no target in the kwargs (dag.test() resumes with the event alone): no Asset extra, still the XCom
            self._push_served_by(context, outcome.task_id, outcome)
        return druid_task_id

    def _green(self, context: Context, target: HandoffTarget, outcome: HandoffOutcome | None) -> str:
        """The gate passed: annotate our Druid asset's event with the task id and interval(s), and push XCom
        ``druid_served_by_task`` (see ``common/assets.py``)."""
        state = outcome.result.state if outcome is not None and outcome.result is not None else "loaded"
        extra = event_extra(conn_id=self.druid_conn_id, datasource=target.datasource, intervals=target.intervals,
                            druid_task_id=target.task_id, handoff=state, queryable=state == "loaded",
                            result=outcome.result if outcome is not None else None)
        for uri in record_event(context, self.outlets, extra):
            self.log.info("Asset event %s: %s", uri, extra)
        self._push_served_by(context, target.task_id, outcome)
        return target.task_id

    def _push_served_by(self, context: Context, druid_task_id: str, outcome: HandoffOutcome | None) -> None:
        """XCom ``druid_served_by_task``: whose data a query reads now (superseded: the later task's)."""
        if context.get("ti") is None:
            return
        result = outcome.result if outcome is not None else None
        served = served_by(druid_task_id, result.state if result is not None else "loaded", result)
        self.log.info("Pushing XCom %s=%s (through the Execution API)", XCOM_SERVED_BY, served)
        context["ti"].xcom_push(key=XCOM_SERVED_BY, value=served)

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        """Output: the datasource, now queryable; run facet ``externalQuery``: the Druid task id. No inputs: the
        spec is the submit operator's (its own lineage has them); this task only knows the task it watched.
        Without a ``datasource`` argument after a deferral, one status read names the task's datasource."""
        from airflow_provider_druid_ingest.common.openlineage import lineage_for

        target = self._target
        task_id = target.task_id if target is not None else self._lineage_task_id
        if task_id is None:
            return None
        config = self.hook.get_config()
        datasource = target.datasource if target is not None else rendered(self.datasource)
        if not datasource:
            with self.hook.get_client() as client:
                datasource = client.status(task_id).datasource
        return lineage_for(config.base_url("broker"), datasource, druid_task_id=task_id)
