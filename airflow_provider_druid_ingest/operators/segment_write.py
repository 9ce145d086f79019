"""``DruidSegmentWriteOperator``: what every operator over a segment write shares, whatever the write (a drop).

The core's :class:`~druid_ingest.planning.SegmentWritePlan`: checked before any HTTP; in the worker its one request
through the API the cluster's version serves (``client.write_segments``; an unserving write that would cut a
segment is refused with nothing marked), then the wait for the state the plan wants, in the triggerer
(:class:`~airflow_provider_druid_ingest.triggers.segment_state.DruidSegmentStateTrigger`) by default or in the
worker. A retry re-sends the request, which changes nothing the second time. A subclass says only how its plan is
built (:meth:`DruidSegmentWriteOperator.build_plan`) and its defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from druid_ingest.errors import DruidError
from druid_ingest.ops import DEFAULT_HANDOFF_TIMEOUT, PollSchedule

from airflow_provider_druid_ingest.common.settings import DEFER_GRACE, default_deferrable, wait_kwargs
from airflow_provider_druid_ingest.operators.plan_operator import DruidPlanOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import SegmentWritePlan

__all__ = ["DruidSegmentWriteOperator"]


class DruidSegmentWriteOperator(DruidPlanOperator):
    """Base of the segment-write operators (not meant to be used directly); green once the interval is in the
    state the plan wants.

    :param datasource: the datasource written (required)
    :param intervals: the one interval; default: the run's data interval
    :param state_timeout: seconds to wait for that state (the Coordinator loading or unloading, the Broker's routing)
    :param poll_interval: first poll delay, growing 1.5x per poll up to ``max_poll_interval``
    :param deferrable: wait in the triggerer (default True, see ``[druid_ingest] default_deferrable``)

    Everything else as :class:`~airflow_provider_druid_ingest.operators.plan_operator.DruidPlanOperator`. No
    Asset event.
    """

    template_fields: Sequence[str] = ("datasource", "intervals", "idempotency_key")

    def __init__(self, *, datasource: str, state_timeout: float = DEFAULT_HANDOFF_TIMEOUT,
                 poll_interval: float = 5.0, max_poll_interval: float = 60.0, deferrable: bool | None = None,
                 **kwargs: Any) -> None:
        super().__init__(datasource=datasource, **kwargs)
        self.state_timeout = float(state_timeout)
        self.poll_interval, self.max_poll_interval = float(poll_interval), float(max_poll_interval)
        self.deferrable = default_deferrable() if deferrable is None else deferrable

    @property
    def _schedule(self) -> PollSchedule:
        return PollSchedule(self.poll_interval, self.max_poll_interval)

    def build_plan(self, context: Context) -> SegmentWritePlan:
        raise NotImplementedError(f"{type(self).__name__} builds no segment write")

    def execute(self, context: Context) -> str:
        plan = self.checked_plan(context, self.build_plan)  # no HTTP before the request is valid
        try:
            with self.hook.get_client() as client:
                marked = client.write_segments(plan)
                self.log.info("%s: %d segment(s) changed now", plan.describe(), marked)
                if not self.deferrable:
                    result = client.watch_segment_state(
                        plan.datasource, plan.intervals[0], plan.base_task_id, plan.wants_served, marked,
                        self.state_timeout, self._schedule, lambda line: self.log.info("%s", line),
                        allow_empty=plan.allow_empty)
                    self.log.info("%s", result.detail)
                    return result.detail
        except DruidError as exc:
            from airflow_provider_druid_ingest.common.results import raise_for

            raise_for(exc)
        from airflow_provider_druid_ingest.triggers.segment_state import DruidSegmentStateTrigger

        self.defer(
            trigger=DruidSegmentStateTrigger(plan.datasource, plan.intervals[0], plan.base_task_id, marked,
                                             plan.wants_served, allow_empty=plan.allow_empty,
                                             **wait_kwargs(self.druid_conn_id, self.state_timeout, self._schedule,
                                                           self.http_retry)),
            method_name="execute_complete",
            timeout=timedelta(seconds=self.state_timeout + DEFER_GRACE),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> str:
        """Resumed by the trigger's one event: a failure raises the core error the trigger met (rebuilt from the
        event's class names), fatal ones without retries."""
        event = event or {}
        message = str(event.get("message") or "")
        if event.get("status") != "success":
            from druid_ingest.errors import error_from_names

            from airflow_provider_druid_ingest.common.results import raise_for

            timed_out = ("DruidWaitTimeoutError",) if event.get("status") == "timeout" else ()
            raise_for(error_from_names((*timed_out, *event.get("error_classes", ())),
                                       f"{self.plan_noun.lower()} not finished ({event.get('status')}): {message}"))
        self.log.info("%s", message)
        return message
