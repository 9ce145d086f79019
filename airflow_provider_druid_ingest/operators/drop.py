"""``DruidDropOperator``: stop serving one interval of a datasource (the retention step before a kill).

The core's ``DropPlan``: checked before any HTTP; in the worker one ``markUnused`` request (refused, with nothing
marked, when the interval would cut a segment that then stays served), then the wait until nothing in the interval
is served, in the triggerer by default. Green means a query of the interval reads no row. A retry re-sends the
request, which changes nothing the second time. The segments stay in deep storage until a
:class:`~airflow_provider_druid_ingest.operators.kill.DruidKillOperator` deletes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from airflow.sdk.exceptions import AirflowException
from druid_ingest.ops import DEFAULT_HANDOFF_TIMEOUT
from druid_ingest.wire import DruidError, PollSchedule

from airflow_provider_druid_ingest.common.settings import DEFER_GRACE, default_deferrable, wait_kwargs
from airflow_provider_druid_ingest.operators.plan_operator import DruidPlanOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import DropPlan

__all__ = ["DruidDropOperator"]


class DruidDropOperator(DruidPlanOperator):
    """Mark one interval of ``datasource`` unused; green once nothing in it is served.

    :param datasource: the datasource to drop from (required)
    :param intervals: the one interval to drop; default: the run's data interval
    :param unserved_timeout: seconds to wait for the Coordinator to unload it and the Broker to stop routing there
    :param poll_interval: first poll delay, growing 1.5x per poll up to ``max_poll_interval``
    :param deferrable: wait in the triggerer (default True, see ``[druid_ingest] default_deferrable``)

    Everything else as :class:`~airflow_provider_druid_ingest.operators.plan_operator.DruidPlanOperator`. No
    Asset event.
    """

    template_fields: Sequence[str] = ("datasource", "intervals", "idempotency_key")
    plan_noun = "Drop"

    def __init__(self, *, datasource: str, unserved_timeout: float = DEFAULT_HANDOFF_TIMEOUT,
                 poll_interval: float = 5.0, max_poll_interval: float = 60.0, deferrable: bool | None = None,
                 **kwargs: Any) -> None:
        super().__init__(datasource=datasource, **kwargs)
        self.unserved_timeout = float(unserved_timeout)
        self.poll_interval, self.max_poll_interval = float(poll_interval), float(max_poll_interval)
        self.deferrable = default_deferrable() if deferrable is None else deferrable

    @property
    def _schedule(self) -> PollSchedule:
        return PollSchedule(self.poll_interval, self.max_poll_interval)

    def build_plan(self, context: Context) -> DropPlan:
        from druid_ingest.planning import build_drop_plan

        return build_drop_plan(self.datasource or "", self.one_interval(context, "drop"),
                               idempotency_key=self.idempotency_key or None)

    def execute(self, context: Context) -> str:
        from druid_ingest.planning import DropPlan

        plan = self.plan(context)  # no HTTP before the request is valid
        assert isinstance(plan, DropPlan)  # build_plan's
        try:
            with self.hook.get_client() as client:
                marked = client.mark_dropped(plan)
                self.log.info("%s: %d segment(s) marked unused now", plan.describe(), marked)
                if not self.deferrable:
                    result = client.watch_unserved(plan, marked, self.unserved_timeout, self._schedule,
                                                   lambda line: self.log.info("%s", line))
                    self.log.info("%s", result.detail)
                    return result.detail
        except DruidError as exc:
            from airflow_provider_druid_ingest.common.results import raise_for

            raise_for(exc)
        from airflow_provider_druid_ingest.triggers.unserved import DruidUnservedTrigger

        self.defer(
            trigger=DruidUnservedTrigger(plan.datasource, plan.intervals[0], plan.base_task_id, marked,
                                         **wait_kwargs(self.druid_conn_id, self.unserved_timeout, self._schedule,
                                                       self.http_retry)),
            method_name="execute_complete",
            timeout=timedelta(seconds=self.unserved_timeout + DEFER_GRACE),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> str:
        """Resumed by the trigger's one event."""
        event = event or {}
        message = str(event.get("message") or "")
        if event.get("status") != "success":
            raise AirflowException(f"drop not finished ({event.get('status')}): {message}")
        self.log.info("%s", message)
        return message
