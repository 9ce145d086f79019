"""``DruidDropOperator``: stop serving one interval of a datasource (the retention step before a kill).

The core's ``DropPlan`` on :class:`DruidSegmentWriteOperator`: one ``markUnused`` request in the worker (refused,
with nothing marked, when the interval would cut a segment that then stays served), then the wait until nothing in
the interval is served, in the triggerer by default. Green means a query of the interval reads no row. The segments
stay in deep storage until a :class:`~airflow_provider_druid_ingest.operators.kill.DruidKillOperator` deletes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from airflow_provider_druid_ingest.operators.segment_write import DruidSegmentWriteOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import DropPlan

__all__ = ["DruidDropOperator"]


class DruidDropOperator(DruidSegmentWriteOperator):
    """Mark one interval of ``datasource`` unused; green once nothing in it is served.

    :param datasource: the datasource to drop from (required)
    :param intervals: the one interval to drop; default: the run's data interval
    :param state_timeout: seconds to wait for the Coordinator to unload it and the Broker to stop routing there

    Everything else as :class:`~airflow_provider_druid_ingest.operators.segment_write.DruidSegmentWriteOperator`.
    """

    plan_noun = "Drop"

    def build_plan(self, context: Context) -> DropPlan:
        from druid_ingest.planning import build_drop_plan

        return build_drop_plan(self.datasource or "", self.one_interval(context, "drop"),
                               idempotency_key=self.idempotency_key or None)
