"""``DruidRestoreOperator``: serve again one dropped interval of a datasource (the undo of a retention drop).

The core's ``RestorePlan`` on :class:`DruidSegmentWriteOperator`: one ``markUsed`` request in the worker, then the
wait until every segment visible in the interval is served and the Broker routes queries to them, in the
triggerer by default. Green means a query of the interval reads its rows again. Only segments a kill has not yet
deleted come back, and only those no other segment overshadows (Druid's rule). An interval with nothing to bring
back (never ingested, or killed) fails the task without retries, unless ``allow_empty=True``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow_provider_druid_ingest.operators.segment_write import DruidSegmentWriteOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import RestorePlan

__all__ = ["DruidRestoreOperator"]


class DruidRestoreOperator(DruidSegmentWriteOperator):
    """Mark the unused segments of one interval of ``datasource`` used again; green once they are served.

    :param datasource: the datasource to restore (required)
    :param intervals: the one interval to restore; default: the run's data interval
    :param state_timeout: seconds to wait for the Coordinator to load it and the Broker to route there
    :param allow_empty: green when the interval has nothing to restore (default False: the task fails, since a
        query would read no row there)

    Everything else as :class:`~airflow_provider_druid_ingest.operators.segment_write.DruidSegmentWriteOperator`.
    """

    plan_noun = "Restore"

    def __init__(self, *, allow_empty: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.allow_empty = bool(allow_empty)

    def build_plan(self, context: Context) -> RestorePlan:
        from druid_ingest.planning import build_restore_plan

        return build_restore_plan(self.datasource or "", self.one_interval(context, "restore"),
                                  idempotency_key=self.idempotency_key or None, allow_empty=self.allow_empty)
