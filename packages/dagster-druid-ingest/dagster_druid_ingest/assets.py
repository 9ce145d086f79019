"""``druid_daily_asset``: one daily-partitioned Dagster asset per Druid datasource, plus its handoff check.

A materialization of partition ``2026-11-01`` plans the spec for ``2026-11-01T00:00:00Z/2026-11-02T00:00:00Z``
(the core's ``build_plan``: intervals and input locations injected, validated before any HTTP), then submits
or adopts the task with the core's deterministic id: re-materializing adopts a RUNNING or SUCCESS task, after
a FAILED one it submits the next attempt (``_r1``). It succeeds when the Druid task succeeded and published
(an empty ingestion fails), recording the task, row counts and the handoff target; the blocking check
``segments_queryable`` (``checks.py``) then goes green only when those segments are queryable.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import dagster as dg
from druid_ingest.ops import (
    DEFAULT_HANDOFF_TIMEOUT,
    DEFAULT_TASK_TIMEOUT,
    AfterFailedPublish,
    HandoffOutcome,
    nothing_to_compact,
)
from druid_ingest.planning import IngestionPlan, Preflight, TemplateSource, check_preflight

from dagster_druid_ingest.checks import CHECK_NAME, handoff_check
from dagster_druid_ingest.failures import as_failures, failure_of, task_failure
from dagster_druid_ingest.metadata import handoff_metadata, submit_metadata, target_metadata, task_metadata
from dagster_druid_ingest.partitions import PartitionWindow, SpecTemplate, Template, daily_partitions
from dagster_druid_ingest.resource import DruidResource
from dagster_druid_ingest.run_config import DruidRunConfig, idempotency_key_of
from dagster_druid_ingest.steps import WaitOptions, check_capacity, first_look, submit, watch_task

__all__ = ["DEFAULT_POOL", "DruidDailyAsset", "druid_daily_asset", "materialize_partition"]

#: the concurrency pool of every ingesting step unless told otherwise (size it: ``pools.py``)
DEFAULT_POOL = "druid_ingest"


@dataclass(frozen=True)
class DruidDailyAsset:
    """What the factory built: put ``asset`` and ``check`` into your ``Definitions``.

    ``plan`` is the first partition's plan, made at definition time (so a malformed spec fails when the code
    location loads): its ``datasource``, ``mode`` and ``peak_slots`` hold for every partition.
    """

    asset: dg.AssetsDefinition
    check: dg.AssetChecksDefinition
    partitions_def: dg.DailyPartitionsDefinition
    plan: IngestionPlan
    pool: str | None
    template: SpecTemplate

    def plan_for(self, partition_key: str, idempotency_key: str | None = None) -> IngestionPlan:
        """The plan a materialization of ``partition_key`` submits (no HTTP): its task id, spec, slots."""
        return self.template.plan_day(partition_key, idempotency_key)


def materialize_partition(context: dg.AssetExecutionContext, config: DruidRunConfig, druid: DruidResource,
                          template: Template, options: WaitOptions) -> dg.MaterializeResult[Any]:
    window = PartitionWindow.of_context(context)
    with as_failures():
        plan = template.plan(window, idempotency_key_of(config, dict(context.run.tags)))
    with druid.get_client() as client:
        with as_failures():
            check_capacity(client, plan, context.log)
            submitted = submit(client, plan, context.log, allow_empty=options.allow_empty,
                               after_failed_publish=options.after_failed_publish)
        metadata = submit_metadata(plan, submitted, client.config.console_task_url(submitted.task_id))
        with as_failures(metadata):
            task = watch_task(client, druid, submitted.task_id, options, context.log)
            metadata.update(task_metadata(task))
            empty = nothing_to_compact(plan, task, options.allow_empty)  # the core's rule; raises without it
            if empty is not None:  # green: nothing written, so no handoff target to look at
                context.log.warning(empty.line)
                metadata["druid/outcome"] = empty.outcome
                return dg.MaterializeResult(metadata=metadata)
            if task.kind != "success":
                raise task_failure(task, metadata, resubmits=True)
            target, look = first_look(client, plan, task)
    metadata.update(handoff_metadata(look))
    metadata.update(target_metadata(target))
    if look.state == "nothing" and not options.allow_empty:
        raise failure_of(HandoffOutcome.of(task.task_id, plan.datasource, look).empty_error(), metadata)
    context.log.info(f"Druid task {task.task_id} published; handoff {look.state}: {look.detail}")
    return dg.MaterializeResult(metadata=metadata)


def druid_daily_asset(
    spec: TemplateSource,
    *,
    start_date: str | datetime,
    input_locations: Sequence[str] = (),
    datasource: str | None = None,
    name: str | None = None,
    key_prefix: str | Sequence[str] | None = None,
    end_date: str | datetime | None = None,
    end_offset: int = 0,
    idempotency_key: str | None = None,
    pool: str | None = DEFAULT_POOL,
    check_pool: str | None = None,
    resource_key: str = "druid",
    task_timeout: float = DEFAULT_TASK_TIMEOUT,
    handoff_timeout: float = DEFAULT_HANDOFF_TIMEOUT,
    on_never: str = "fail",
    allow_empty: bool = False,
    shutdown_on_terminate: bool = True,
    shutdown_on_timeout: bool = True,
    retry_policy: dg.RetryPolicy | None = None,
    group_name: str | None = None,
    deps: Iterable[Any] | None = None,
    description: str | None = None,
    timezone: str = "UTC",
    allow_unaligned: bool = False,
    preflight: Preflight = "fail",
    after_failed_publish: AfterFailedPublish = "fail",
) -> DruidDailyAsset:
    """A daily (UTC) partitioned asset ingesting ``spec`` into Druid, one partition per Druid interval.

    :param spec: the task template: a dict, a ``.json`` path, JSON or Jinja text (Jinja may use
        ``partition_key``, ``start``, ``end``, ``interval``)
    :param input_locations: ``str.format`` templates per partition, e.g. ``"s3://b/events/{start:%Y/%m/%d}/"``
        or ``"/data/{partition_key}"``; injected where the spec's input source reads them
    :param datasource: overrides the spec's ``dataSource``; the asset is named after the datasource by default
    :param pool: the Dagster concurrency pool of the ingesting step (``None``: no pool)
    :param check_pool: the pool of the handoff check (default none: waiting for handoff takes no task slot)
    :param resource_key: the key of the :class:`DruidResource` in ``Definitions(resources=...)``
    :param handoff_timeout: seconds the check waits for the segments to be queryable
    :param on_never: ``"fail"`` (default) or ``"pass"`` when load rules mean the segments never load
    :param allow_empty: accept a task that published nothing (a holiday) instead of failing; also turns off the
        input probe that fails a ``dropExisting`` replace before submitting when Druid's sampler reads no row
    :param shutdown_on_terminate: shut the Druid task down when the run is terminated (default True)
    :param shutdown_on_timeout: shut it down after ``task_timeout`` (default True; False: a retry adopts it)
    :param retry_policy: a step retry adopts a running/succeeded task, or submits ``_r<n>`` after a FAILED one
    :param timezone: the partitions' days (default UTC). A local day is not a UTC DAY bucket: use HOUR segments
        or a period granularity in that zone, or the definitions fail to load (docs/airflow.md "Non-UTC schedules")
    :param allow_unaligned: accept a replace whose partition windows are not on segmentGranularity buckets
        (the rest of each bucket is overwritten: data loss) as a warning instead of refusing it
    :param preflight: ``"warn"``: the escape hatch when Druid accepts a spec pre-flight refuses; every problem
        becomes a plan warning (step log and metadata) and the spec is submitted as is (core ``build_plan``)
    :param after_failed_publish: ``"fail"`` (default): a retry of an append whose FAILED attempt may have
        published fails without submitting again; ``"resubmit"``: submit anyway (docs/druid-contract.md §attempts)
    """
    partitions_def = daily_partitions(start_date, end_date, end_offset, timezone)
    template = SpecTemplate(spec, datasource, tuple(input_locations), idempotency_key, timezone, allow_unaligned,
                            check_preflight(preflight))
    plan = template.check_at_load(partitions_def.start.strftime("%Y-%m-%d"))  # a bad spec fails at load
    options = WaitOptions(task_timeout, handoff_timeout, on_never, allow_empty, shutdown_on_terminate,
                          shutdown_on_timeout, after_failed_publish)

    @dg.asset(
        name=name or plan.datasource,
        key_prefix=key_prefix,
        partitions_def=partitions_def,
        pool=pool,
        required_resource_keys={resource_key},
        kinds={"druid"},
        retry_policy=retry_policy,
        group_name=group_name,
        deps=deps,
        description=description or f"Druid datasource {plan.datasource!r}, one {timezone} day per partition "
                                   f"({plan.mode}); check '{CHECK_NAME}' says when it is queryable.",
        metadata={"druid/datasource": plan.datasource, "druid/peak_slots": plan.peak_slots,
                  "druid/mode": plan.mode},
    )
    def ingest(context: dg.AssetExecutionContext, config: DruidRunConfig) -> dg.MaterializeResult[Any]:
        return materialize_partition(context, config, getattr(context.resources, resource_key), template, options)

    check = handoff_check(ingest.key, partitions_def, resource_key, options, pool=check_pool)
    return DruidDailyAsset(ingest, check, partitions_def, plan, pool, template)
