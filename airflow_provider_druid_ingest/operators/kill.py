"""``DruidKillOperator``: delete for good the unused segments of one interval (the step after a retention drop).

The core's ``KillPlan`` on :class:`DruidWorkOperator`: a deterministic id (a retried or cleared task adopts the
kill instead of queueing a second), the deferred task wait, shutdown on kill. No handoff gate: a kill publishes
nothing. Druid's kill task only ever takes unused segments, so data still served is never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from airflow_provider_druid_ingest.operators.work import DruidWorkOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import KillPlan

__all__ = ["DruidKillOperator"]


class DruidKillOperator(DruidWorkOperator):
    """Kill the unused segments of ``datasource`` in one interval; green once Druid's kill task succeeded.

    :param datasource: the datasource to clean up (required)
    :param intervals: the one interval whose unused segments go; default: the run's data interval
    :param batch_size: segments deleted per metadata transaction (Druid's default 100)
    :param limit: at most this many segments in all (default: every unused one in the interval)

    Everything else as :class:`~airflow_provider_druid_ingest.operators.work.DruidWorkOperator` (``task_timeout``,
    ``deferrable``, ``shutdown_on_kill``, ...; the handoff parameters do not apply). No Asset event by default.
    """

    template_fields: Sequence[str] = ("datasource", "intervals", "idempotency_key")
    plan_noun = "Kill"

    def __init__(self, *, datasource: str, batch_size: int | None = None, limit: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(datasource=datasource, **kwargs)
        self.batch_size = batch_size
        self.limit = limit

    @classmethod
    def _default_outlets(cls, kwargs: dict[str, Any]) -> list[Any]:
        return []

    def build_plan(self, context: Context) -> KillPlan:
        from druid_ingest.planning import build_kill_plan

        interval = self.one_interval(context, "kill")
        return build_kill_plan(self.datasource or "", interval, batch_size=self.batch_size, limit=self.limit,
                               idempotency_key=self.idempotency_key or None)
