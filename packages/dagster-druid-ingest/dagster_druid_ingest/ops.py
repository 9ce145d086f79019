"""The op flavour: a submit op that outputs the Druid task id, a wait op that consumes it, in a partitioned job.

Same core calls as the asset. Differences that follow from the split: the wait op does the whole wait, task then
handoff gate, so the job succeeds only when the data is queryable; a retry of the *submit* op resubmits after a
FAILED task, while a retry of the *wait* op could only watch the same FAILED task, so a FAILED task fails the
wait op without retries (re-run the job). Both ops sit in the pool; between the submit op finishing and the
wait op starting, the pool does not count the running Druid task (use the asset to avoid that gap).
"""

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

import dagster as dg
from druid_ingest.errors import DruidError
from druid_ingest.planning import Preflight, TemplateSource, check_preflight

from dagster_druid_ingest.assets import DEFAULT_POOL
from dagster_druid_ingest.failures import as_failures, failure_of, task_failure
from dagster_druid_ingest.metadata import TASK_ID_KEY, handoff_metadata, submit_metadata, task_metadata
from dagster_druid_ingest.partitions import PartitionWindow, SpecTemplate, daily_partitions
from dagster_druid_ingest.run_config import DruidRunConfig, idempotency_key_of
from dagster_druid_ingest.steps import WaitOptions, check_capacity, progress_logger, submit, watch_task

__all__ = ["DruidIngestOps", "druid_daily_job", "druid_ingest_ops"]


class DruidIngestOps(NamedTuple):
    submit: dg.OpDefinition
    wait: dg.OpDefinition


def druid_ingest_ops(
    name: str,
    spec: TemplateSource,
    *,
    input_locations: Sequence[str] = (),
    datasource: str | None = None,
    idempotency_key: str | None = None,
    pool: str | None = DEFAULT_POOL,
    resource_key: str = "druid",
    options: WaitOptions | None = None,
    allow_unaligned: bool = False,
    preflight: Preflight = "fail",
) -> DruidIngestOps:
    """``<name>_submit`` (outputs the Druid task id) and ``<name>_wait`` (input ``druid_task_id``), for a job
    with daily partitions. Both plan the partition the same way (no HTTP); only submit sends the spec.
    ``allow_unaligned``, ``preflight``: see :func:`~.assets.druid_daily_asset`."""
    template = SpecTemplate(spec, datasource, tuple(input_locations), idempotency_key,
                            allow_unaligned=allow_unaligned, preflight=check_preflight(preflight))
    wait_options = options or WaitOptions()

    @dg.op(name=f"{name}_submit", pool=pool, required_resource_keys={resource_key},
           out=dg.Out(str, description="the Druid task id (submitted or adopted)"), tags={"kind": "druid"})
    def submit_op(context: dg.OpExecutionContext, config: DruidRunConfig) -> dg.Output[str]:
        druid = getattr(context.resources, resource_key)
        with as_failures():
            key = idempotency_key_of(config, dict(context.run.tags))
            plan = template.plan(PartitionWindow.of_context(context), key)
            with druid.get_client() as client:
                check_capacity(client, plan, context.log)
                outcome = submit(client, plan, context.log, allow_empty=wait_options.allow_empty,
                                 after_failed_publish=wait_options.after_failed_publish)
                url = client.config.console_task_url(outcome.task_id)
        return dg.Output(outcome.task_id, metadata=submit_metadata(plan, outcome, url))

    @dg.op(name=f"{name}_wait", pool=pool, required_resource_keys={resource_key},
           ins={"druid_task_id": dg.In(str)}, out=dg.Out(str, description="the Druid task id, once queryable"),
           tags={"kind": "druid"})
    def wait_op(context: dg.OpExecutionContext, druid_task_id: str) -> dg.Output[str]:
        druid = getattr(context.resources, resource_key)
        metadata = {TASK_ID_KEY: druid_task_id}
        with as_failures(metadata):
            plan = template.plan(PartitionWindow.of_context(context))  # datasource, intervals, mode: no HTTP
            with druid.get_client() as client:
                task = watch_task(client, druid, druid_task_id, wait_options, context.log)
                metadata.update(task_metadata(task))
                if task.kind != "success":
                    raise task_failure(task, metadata, resubmits=False)
                target = client.handoff_target(druid_task_id, plan.datasource, list(plan.intervals), plan.append,
                                               task.version_ceiling)
                handoff = client.watch_handoff(target, wait_options.handoff_timeout, druid.poll_schedule(),
                                               on_progress=progress_logger(context.log, druid_task_id))
        if handoff.result is not None:
            metadata.update(handoff_metadata(handoff.result))
        try:
            handoff.settle(wait_options.on_never, wait_options.allow_empty)
        except DruidError as exc:
            raise failure_of(exc, metadata) from None
        context.log.info(f"Data of Druid task {druid_task_id} is queryable: {handoff.message}")
        return dg.Output(druid_task_id, metadata=metadata)

    return DruidIngestOps(submit_op, wait_op)


def druid_daily_job(
    name: str,
    spec: TemplateSource,
    *,
    start_date: str | datetime,
    end_date: str | datetime | None = None,
    input_locations: Sequence[str] = (),
    datasource: str | None = None,
    idempotency_key: str | None = None,
    pool: str | None = DEFAULT_POOL,
    resource_key: str = "druid",
    options: WaitOptions | None = None,
    tags: dict[str, str] | None = None,
    timezone: str = "UTC",
    allow_unaligned: bool = False,
    preflight: Preflight = "fail",
) -> dg.JobDefinition:
    """A daily (UTC unless ``timezone``) partitioned job ``submit -> wait`` (``dagster job execute -j <name> --tags
    '{"dagster/partition": "2026-11-01"}'``, or ``build_schedule_from_partitioned_job``). ``timezone`` and
    ``allow_unaligned``, ``preflight``: see :func:`~.assets.druid_daily_asset`."""
    partitions_def = daily_partitions(start_date, end_date, timezone=timezone)
    template = SpecTemplate(spec, datasource, tuple(input_locations), idempotency_key, timezone, allow_unaligned,
                            check_preflight(preflight))
    template.check_at_load(partitions_def.start.strftime("%Y-%m-%d"))  # a bad or unaligned spec fails at load
    ops = druid_ingest_ops(name, spec, input_locations=input_locations, datasource=datasource,
                           idempotency_key=idempotency_key, pool=pool, resource_key=resource_key, options=options,
                           allow_unaligned=allow_unaligned, preflight=preflight)

    @dg.job(name=name, partitions_def=partitions_def, tags=tags)
    def ingest_job() -> None:
        ops.wait(ops.submit())

    return ingest_job
