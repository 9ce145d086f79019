"""The compaction flavour: one Druid ``compact`` task per partition (a month re-rolled into MONTH segments after
its days were ingested), planned by the core's ``build_compaction_plan``.

Everything but the plan is the ingestion path (submit or adopt under the deterministic id, the task wait, the
handoff gate): a re-materialization adopts the partition's compaction, and the step is green once the compacted
segments are served. Its asset is ``<datasource>/compacted`` (the datasource's own asset is the ingesting one).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import dagster as dg
from druid_ingest.planning import CompactionPlan, build_compaction_plan

from dagster_druid_ingest.assets import DEFAULT_POOL
from dagster_druid_ingest.decorator import build_assets
from dagster_druid_ingest.partitions import PartitionWindow
from dagster_druid_ingest.steps import WaitOptions
from dagster_druid_ingest.translator import DagsterDruidTranslator

__all__ = ["CompactionTemplate", "druid_compaction_assets"]


@dataclass(frozen=True)
class CompactionTemplate:
    """A compaction of each partition's window of ``datasource``."""

    datasource: str
    segment_granularity: str | None = None
    tuning_config: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str | None = None

    def plan(self, window: PartitionWindow, idempotency_key: str | None = None) -> CompactionPlan:
        return build_compaction_plan(self.datasource, window.interval, segment_granularity=self.segment_granularity,
                                     tuning_config=self.tuning_config,
                                     idempotency_key=idempotency_key or self.idempotency_key)

    def loosened(self) -> None:
        """No opt-in: Druid itself fails a compaction whose window is off the target granularity's buckets."""
        return None


def druid_compaction_assets(
    *,
    datasource: str,
    partitions_def: dg.PartitionsDefinition,
    segment_granularity: str | None = None,
    tuning_config: dict[str, Any] | None = None,
    name: str | None = None,
    translator: DagsterDruidTranslator | None = None,
    idempotency_key: str | None = None,
    pool: str | None = DEFAULT_POOL,
    resource_key: str = "druid",
    options: WaitOptions | None = None,
    deps: Sequence[Any] = (),
    retry_policy: dg.RetryPolicy | None = None,
) -> Callable[[Callable[..., Any]], dg.AssetsDefinition]:
    """A compaction asset over ``partitions_def`` (e.g. monthly partitions with ``segment_granularity="MONTH"``;
    each window must fit the granularity, or the definitions fail to load). Put the ingesting asset in ``deps``.
    Other arguments as :func:`~.decorator.druid_assets`."""
    template = CompactionTemplate(datasource, segment_granularity, dict(tuning_config or {}), idempotency_key)
    return build_assets(template, partitions_def, name=name, pool=pool, resource_key=resource_key,
                        options=options or WaitOptions(), translator=translator, deps=deps, retry_policy=retry_policy,
                        field="partitions_def")
