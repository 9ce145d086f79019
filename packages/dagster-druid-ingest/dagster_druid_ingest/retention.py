"""The retention flavour and the segment writes: ops over the core's segment-write seam for partitioned jobs.

:func:`druid_segment_write_op` runs any segment write (a drop; a plan of ``druid_ingest.planning`` whose work is
one request to Druid's segment write API) over the partition's window: ``client.segment_write``, green once the
window is in the state the plan wants. :func:`druid_retention_op` drops the window ``keep_days`` back, then deletes
it for good: the same core calls as the Airflow retention DAG, ``client.segment_write`` of a drop (an interval
that would cut a segment fails with nothing marked) and the kill task under its deterministic id (a re-run adopts
it). Safe to re-run: the write then changes nothing and the kill is adopted.
"""

from collections.abc import Callable
from datetime import timedelta

import dagster as dg
from druid_ingest.planning import SegmentWritePlan, build_drop_plan, build_kill_plan

from dagster_druid_ingest.assets import DEFAULT_POOL
from dagster_druid_ingest.failures import as_failures
from dagster_druid_ingest.partitions import PartitionWindow, druid_interval
from dagster_druid_ingest.steps import WaitOptions, progress_logger, submit

__all__ = ["druid_retention_op", "druid_segment_write_op"]


def druid_segment_write_op(name: str, *, build: Callable[[str], SegmentWritePlan], pool: str | None = DEFAULT_POOL,
                           resource_key: str = "druid", options: WaitOptions | None = None) -> dg.OpDefinition:
    """An op for a partitioned job: the segment write ``build(interval)`` plans for the partition's window (e.g.
    ``build=functools.partial(build_drop_plan, "events")``), green once it is in the state the plan wants. The
    plan is built inside the op, so a refusal (a bad datasource) fails the run naming the field, nothing sent."""
    wait = options or WaitOptions()

    @dg.op(name=name, pool=pool, required_resource_keys={resource_key}, tags={"kind": "druid"})
    def segment_write(context: dg.OpExecutionContext) -> dg.Output[str]:
        druid = getattr(context.resources, resource_key)
        window = PartitionWindow.of_context(context)
        with as_failures():
            plan = build(druid_interval(window.start, window.end))
            context.log.info(plan.describe())
            with druid.get_client() as client:
                result = client.segment_write(plan, wait.handoff_timeout, druid.poll_schedule(), context.log.info)
        context.log.info(result.detail)
        return dg.Output(result.interval, metadata={"kind": plan.kind, "name": result.name, "marked": result.marked,
                                                    "wants_served": result.wants_served})

    return segment_write


def druid_retention_op(name: str, *, datasource: str, keep_days: int, pool: str | None = DEFAULT_POOL,
                       resource_key: str = "druid", options: WaitOptions | None = None) -> dg.OpDefinition:
    """An op for a partitioned job: drop, then kill, the partition's window moved ``keep_days`` back."""
    if keep_days < 1:
        raise dg.DagsterInvalidDefinitionError(f"keep_days: must be at least 1 (got {keep_days!r})")
    wait = options or WaitOptions()

    @dg.op(name=name, pool=pool, required_resource_keys={resource_key}, tags={"kind": "druid"})
    def retention(context: dg.OpExecutionContext) -> dg.Output[str]:
        druid = getattr(context.resources, resource_key)
        window = PartitionWindow.of_context(context)
        aged = druid_interval(window.start - timedelta(days=keep_days), window.end - timedelta(days=keep_days))
        with as_failures():
            drop, kill = build_drop_plan(datasource, aged), build_kill_plan(datasource, aged)
            with druid.get_client() as client:
                dropped = client.segment_write(drop, wait.handoff_timeout, druid.poll_schedule(), context.log.info)
                context.log.info(dropped.detail)
                outcome = submit(client, kill, context.log)
                status = client.wait_for_task(outcome.task_id, wait.task_timeout, druid.poll_schedule(),
                                              on_progress=progress_logger(context.log, outcome.task_id))
        return dg.Output(aged, metadata={"marked_unused": dropped.marked, "kill_task_id": outcome.task_id,
                                         "kill_state": status.state})

    return retention
