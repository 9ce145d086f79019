"""``DruidCompactOperator``: compact one datasource interval and finish only when the compacted data is served.

A compaction after a backfill (merge a month's small DAY segments, or re-roll DAY into MONTH) has the seam
problems of an ingestion: a retry must not start a second task, and Druid's SUCCESS is not "queryable". It is the
core's ``CompactionPlan`` on :class:`DruidWorkOperator`: the same deterministic id, deferred wait, handoff gate
(``superseded`` names a later task that replaced the compacted version) and shutdown on kill.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from airflow_provider_druid_ingest.operators.work import DruidWorkOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import CompactionPlan

__all__ = ["DruidCompactOperator"]


def _compaction_slots(tuning_config: Any) -> int:
    workers = tuning_config.get("maxNumConcurrentSubTasks", 1) if isinstance(tuning_config, dict) else 1
    return workers + 1 if isinstance(workers, int) and not isinstance(workers, bool) and workers >= 2 else 1


class DruidCompactOperator(DruidWorkOperator):
    """Compact ``datasource`` over one interval; green once the compacted version is what the Broker serves.

    :param datasource: the datasource to compact (required)
    :param intervals: the one interval to compact; default: the run's data interval. With
        ``segment_granularity`` it must start and end on that granularity's buckets (Druid fails the task
        otherwise; refused here before any HTTP)
    :param segment_granularity: the granularity of the segments it writes (``MONTH`` re-rolls DAY segments);
        default: Druid's (the input's)
    :param tuning_config: Druid's ``index_parallel`` tuning for the task (``partitionsSpec``,
        ``maxNumConcurrentSubTasks``, ...); ``pool_slots`` defaults to its peak task slots
    :param allow_empty: an interval without used segments (Druid fails that compaction before it runs) is done:
        the task is green and logs "Nothing to compact" (no gate, no retry submits again). By default it fails
        with ``DruidNothingToCompactError`` naming the datasource and interval, without retries

    Everything else as :class:`~airflow_provider_druid_ingest.operators.work.DruidWorkOperator`. No Asset event
    by default: a compaction changes how the data is stored, not what queries read.
    """

    template_fields: Sequence[str] = ("datasource", "intervals", "idempotency_key", "tuning_config")
    template_fields_renderers = {"tuning_config": "json"}
    plan_noun = "Compaction"

    def __init__(
        self,
        *,
        datasource: str,
        segment_granularity: str | None = None,
        tuning_config: dict[str, Any] | None = None,
        pool_slots: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(datasource=datasource, pool_slots=pool_slots or _compaction_slots(tuning_config), **kwargs)
        self.segment_granularity = segment_granularity
        self.tuning_config = dict(tuning_config or {})

    @classmethod
    def _default_pool_slots(cls, kwargs: dict[str, Any]) -> int:
        return _compaction_slots(kwargs.get("tuning_config"))

    @classmethod
    def _default_outlets(cls, kwargs: dict[str, Any]) -> list[Any]:
        return []

    def build_plan(self, context: Context) -> CompactionPlan:
        from druid_ingest.planning import build_compaction_plan

        interval = self.one_interval(context, "compaction")
        return build_compaction_plan(self.datasource or "", interval,
                                     segment_granularity=self.segment_granularity, tuning_config=self.tuning_config,
                                     idempotency_key=self.idempotency_key or None)
