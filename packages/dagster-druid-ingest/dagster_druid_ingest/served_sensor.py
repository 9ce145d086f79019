"""A Dagster sensor on what Druid serves: runs downstream work once *any* writer's data for a partition is queryable.

Thin over the core's served-changes watch (``client.served_changes``, docs/watching.md): each tick is one look
(one request when nothing changed), its cursor is the sensor's cursor, and each changed partition of
``partitions_def`` (or the whole batch, unpartitioned) becomes one ``RunRequest``. Dagster stores the cursor
with the tick, and a run key it has launched before is skipped, so a tick whose cursor was lost (the daemon
killed between launching and saving) launches nothing twice when it is evaluated again: the run key is the
look's served fingerprint and the partition.
"""

from __future__ import annotations

from collections.abc import Sequence

import dagster as dg
from druid_ingest.ops import REPORTED_KINDS, WATCH_EVERY, ChangeBatch, ChangeKind, ServedChange, WatchCursor
from druid_ingest.planning import parse_interval

from dagster_druid_ingest.resource import DruidResource

__all__ = ["changed_partitions", "druid_served_sensor"]


def changed_partitions(changes: Sequence[ServedChange], partitions_def: dg.TimeWindowPartitionsDefinition) -> list[str]:
    """The partition keys whose time window overlaps a change, in time order (a change outside every partition
    names none)."""
    keys: list[str] = []
    for change in changes:
        start, end = parse_interval(change.interval)
        for window in partitions_def.get_partition_keys_in_time_window(dg.TimeWindow(start, end)):
            if window not in keys:
                keys.append(window)
    return keys


def _run_requests(batch: ChangeBatch, partitions_def: dg.TimeWindowPartitionsDefinition | None,
                  ) -> list[dg.RunRequest]:
    """One run per changed partition (one for the batch, unpartitioned), keyed by the look that saw it."""
    tags = {"druid/datasource": batch.cursor.datasource, "druid/served": batch.cursor.served}
    if partitions_def is None:
        return [dg.RunRequest(run_key=batch.key, tags=tags)]
    return [dg.RunRequest(run_key=f"{batch.key}:{key}", partition_key=key, tags=tags)
            for key in changed_partitions(batch.changes, partitions_def)]


def druid_served_sensor(
    name: str,
    *,
    datasource: str,
    target: dg.JobDefinition | dg.UnresolvedAssetJobDefinition | dg.AssetSelection | Sequence[str],
    window: str | None = None,
    partitions_def: dg.TimeWindowPartitionsDefinition | None = None,
    minimum_interval_seconds: int = int(WATCH_EVERY),
    resource_key: str = "druid",
    on: Sequence[ChangeKind] = REPORTED_KINDS,
    default_status: dg.DefaultSensorStatus = dg.DefaultSensorStatus.STOPPED,
    from_now: bool = False,
) -> dg.SensorDefinition:
    """A sensor that requests a run of ``target`` for each partition whose data Druid newly serves (or drops).

    ``window``: the interval watched (default all time); ``partitions_def``: the target's time partitions (a run
    per changed partition; None: one run per batch of changes); ``on``: the change kinds that request runs
    (add ``"dropped"`` to run on retention too). Without a cursor the first tick reports everything already
    served; ``from_now`` records it instead (the core's ``first_batch``, as the CLI and the Airflow trigger do).
    """

    @dg.sensor(name=name, target=target, minimum_interval_seconds=minimum_interval_seconds,
               required_resource_keys={resource_key}, default_status=default_status,
               description=f"Runs when what Druid serves of {datasource!r} changes (druid-ingest served watch)")
    def served(context: dg.SensorEvaluationContext, **resources: object) -> dg.SensorResult:
        druid = resources[resource_key]  # Dagster passes each required resource by its key
        if not isinstance(druid, DruidResource):
            raise dg.DagsterInvalidDefinitionError(f"resource {resource_key!r}: expected a DruidResource, got "
                                                   f"{type(druid).__name__}")
        cursor = WatchCursor.from_json(context.cursor) if context.cursor else None
        with druid.get_client() as client:
            batch = client.served_changes(datasource, window, cursor, from_now=from_now)
        for change in batch.changes:
            context.log.info(f"{change.kind} {change.interval}: version {change.version} by {change.writer}")
        wanted = batch.only(on)
        if not wanted.changes:
            return dg.SensorResult(cursor=batch.cursor.to_json())
        return dg.SensorResult(run_requests=_run_requests(wanted, partitions_def), cursor=batch.cursor.to_json())

    return served
