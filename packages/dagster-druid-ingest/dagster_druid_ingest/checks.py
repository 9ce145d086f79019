"""The handoff gate as a blocking, partitioned asset check: green only when the partition's new segments are
queryable (the core's gate: the newest version at or above the task's own is served and the Broker reads it).

Why a separate check and not a wait inside the asset: the Druid task's slots are free the moment it succeeds,
while a handoff can take minutes (Coordinator period, segment download). As its own step the gate does not
hold the ingest pool's slot, so the next partition's ingestion can start meanwhile; it can be re-run alone
(after fixing load rules, say); and ``blocking=True`` still keeps downstream assets of the same run from
running until it passes. The price: ``partitions_def`` on an asset check is a Dagster *preview* feature in
1.13 (it emits a ``PreviewWarning``); the ``<1.14`` pin and the tests hold it in place.

The check learns what to wait for from the partition's latest materialization: the asset records the core's
``HandoffTarget`` there (``druid/handoff_target``). Nothing is recomputed and no task is resubmitted here.
Its looks are the core's handoff looks (``client.watch_handoff``), placed from the task's end that target keeps.
"""

import time
from typing import Any

import dagster as dg
from druid_ingest.errors import DruidError

from dagster_druid_ingest.failures import as_failures
from dagster_druid_ingest.metadata import TASK_ID_KEY, handoff_metadata, target_of
from dagster_druid_ingest.steps import WaitOptions, progress_logger

__all__ = ["CHECK_NAME", "handoff_check"]

CHECK_NAME = "segments_queryable"


def _latest_metadata(instance: dg.DagsterInstance, key: dg.AssetKey,
                     partition: str) -> dict[str, dg.MetadataValue] | None:
    records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition]),
                                              limit=1).records
    materialization = records[0].asset_materialization if records else None
    return dict(materialization.metadata) if materialization is not None else None


def handoff_check(asset_key: dg.AssetKey, partitions_def: dg.PartitionsDefinition, resource_key: str,
                  options: WaitOptions, *, pool: str | None = None,
                  name: str = CHECK_NAME) -> dg.AssetChecksDefinition:
    """The blocking check for one Druid asset; ``pool`` caps concurrent gate waits (none by default: a wait
    uses no Druid task slot)."""

    @dg.asset_check(
        asset=asset_key, name=name, partitions_def=partitions_def, blocking=True, pool=pool,
        required_resource_keys={resource_key},
        description="Green only when this partition's new Druid segments are queryable (served and read by the "
                    "Broker); blocks downstream assets until then.",
    )
    def segments_queryable(context: dg.AssetCheckExecutionContext) -> dg.AssetCheckResult:
        partition = context.partition_key
        found = _latest_metadata(context.instance, asset_key, partition)
        target = target_of(found) if found is not None else None
        said = found.get("druid/outcome") if found is not None else None
        if target is None and said is not None and getattr(said, "value", said) == "nothing to compact":
            return dg.AssetCheckResult(  # the core's green outcome (allow_empty): nothing was written to wait for
                passed=True, description=f"partition {partition}: nothing to compact, so no segment to wait for")
        if target is None:
            return dg.AssetCheckResult(
                passed=False, description=f"partition {partition} has no Druid materialization to check")
        druid = getattr(context.resources, resource_key)
        started = time.monotonic()
        with as_failures({TASK_ID_KEY: target.task_id}), druid.get_client() as client:
            outcome = client.watch_handoff(target, options.handoff_timeout, druid.poll_schedule(),
                                           on_progress=progress_logger(context.log, target.task_id))
        metadata: dict[str, Any] = {TASK_ID_KEY: target.task_id, "druid/waited_s": round(time.monotonic() - started, 3)}
        if outcome.result is not None:
            metadata.update(handoff_metadata(outcome.result))
        try:
            outcome.settle(options.on_never, options.allow_empty)
        except DruidError as exc:
            return dg.AssetCheckResult(passed=False, description=str(exc), metadata=metadata)
        context.log.info(f"Data of Druid task {target.task_id} is queryable: {outcome.message}")
        return dg.AssetCheckResult(passed=True, description=outcome.message, metadata=metadata)

    return segments_queryable
