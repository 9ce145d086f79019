"""``@druid_assets`` / ``@druid_msq_assets``: a ``multi_asset`` per Druid datasource, any time-window partitions.

The decorated function gets the step context and a :class:`DruidIngestion` (the resource, the template, the
wait options and the run's config, bound for this step) and yields or returns what ``ingestion.ingest(context)``
gives, after or around anything of its own (the dagster-fivetran/-sling shape)::

    @druid_assets(spec="specs/events.json", partitions_def=dg.HourlyPartitionsDefinition(start_date=...))
    def events(context: dg.AssetExecutionContext, druid: DruidIngestion):
        yield druid.ingest(context)

The template is planned for sample partitions when the decorator runs (``alignment.check_partitions``), so a bad
or unaligned spec fails when the code location loads. The blocking handoff gate is its own asset check, so the
pool's slot is free while Druid loads segments: add ``druid_handoff_check(events)`` to your ``Definitions``.
"""

import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
from druid_ingest.planning import Preflight, TemplateSource, check_preflight

from dagster_druid_ingest.alignment import check_partitions
from dagster_druid_ingest.assets import DEFAULT_POOL, materialize_partition
from dagster_druid_ingest.checks import handoff_check
from dagster_druid_ingest.msq import MsqTemplate
from dagster_druid_ingest.partitions import SpecTemplate, Template
from dagster_druid_ingest.resource import DruidResource
from dagster_druid_ingest.run_config import DruidRunConfig
from dagster_druid_ingest.steps import WaitOptions
from dagster_druid_ingest.translator import DagsterDruidTranslator, DruidAssetProps

__all__ = ["DruidIngestion", "build_assets", "druid_assets", "druid_handoff_check", "druid_msq_assets"]

#: metadata keys the decorator puts on the spec, read back by :func:`druid_handoff_check`
RESOURCE_KEY = "druid/resource_key"


@dataclass(frozen=True)
class DruidIngestion:
    """One step's ingestion, bound: ``ingest(context)`` plans the partition, submits or adopts, waits."""

    resource: DruidResource
    template: Template
    options: WaitOptions
    config: DruidRunConfig

    def ingest(self, context: dg.AssetExecutionContext) -> dg.MaterializeResult[Any]:
        return materialize_partition(context, self.config, self.resource, self.template, self.options)


def build_assets(template: Template, partitions_def: dg.PartitionsDefinition, *, name: str | None, pool: str | None,
           resource_key: str, options: WaitOptions, translator: DagsterDruidTranslator | None,
           deps: Sequence[Any], retry_policy: dg.RetryPolicy | None, field: str,
           ) -> Callable[[Callable[..., Any]], dg.AssetsDefinition]:
    plan = check_partitions(template, partitions_def, field)
    dep_keys = [dg.AssetKey.from_coercible_or_definition(d) for d in deps]
    spec = (translator or DagsterDruidTranslator()).get_asset_spec(
        DruidAssetProps.of_plan(plan, partitions_def, dep_keys))
    spec = spec.merge_attributes(metadata={RESOURCE_KEY: resource_key})

    def decorate(fn: Callable[..., Any]) -> dg.AssetsDefinition:
        op_name = name or (spec.key.to_python_identifier() if inspect.ismethod(fn) else fn.__name__)

        @dg.multi_asset(name=op_name, specs=[spec], pool=pool, required_resource_keys={resource_key},
                        retry_policy=retry_policy)
        def _compute(context: dg.AssetExecutionContext, config: DruidRunConfig) -> Iterator[Any]:
            bound = DruidIngestion(getattr(context.resources, resource_key), template, options, config)
            out = fn(context, bound)
            if inspect.isgenerator(out):
                yield from out
            elif out is not None:
                yield out

        return _compute

    return decorate


def druid_assets(
    *,
    spec: TemplateSource,
    partitions_def: dg.PartitionsDefinition,
    input_locations: Sequence[str] = (),
    datasource: str | None = None,
    name: str | None = None,
    translator: DagsterDruidTranslator | None = None,
    idempotency_key: str | None = None,
    pool: str | None = DEFAULT_POOL,
    resource_key: str = "druid",
    options: WaitOptions | None = None,
    deps: Sequence[Any] = (),
    retry_policy: dg.RetryPolicy | None = None,
    allow_unaligned: bool = False,
    preflight: Preflight = "fail",
    partitions_field: str = "partitions_def",
) -> Callable[[Callable[..., Any]], dg.AssetsDefinition]:
    """A native-spec Druid asset over ``partitions_def`` (hourly, daily, weekly, monthly, cron; any zone whose
    windows fit the spec's segmentGranularity). Arguments as :func:`~.assets.druid_daily_asset`;
    ``partitions_field`` is the name an alignment refusal gives the partitions (the Component's ``partitions``)."""
    template = SpecTemplate(spec, datasource, tuple(input_locations), idempotency_key,
                            timezone=str(getattr(partitions_def, "timezone", "UTC")),  # the refusal's words
                            allow_unaligned=allow_unaligned, preflight=check_preflight(preflight))
    return build_assets(template, partitions_def, name=name, pool=pool, resource_key=resource_key,
                  options=options or WaitOptions(), translator=translator, deps=deps, retry_policy=retry_policy,
                  field=partitions_field)


def druid_msq_assets(
    *,
    sql: str | Path,
    partitions_def: dg.PartitionsDefinition,
    datasource: str | None = None,
    query_context: dict[str, Any] | None = None,
    variables: dict[str, Any] | None = None,
    name: str | None = None,
    translator: DagsterDruidTranslator | None = None,
    idempotency_key: str | None = None,
    allow_overwrite_all: bool = False,
    pool: str | None = DEFAULT_POOL,
    resource_key: str = "druid",
    options: WaitOptions | None = None,
    deps: Sequence[Any] = (),
    retry_policy: dg.RetryPolicy | None = None,
    partitions_field: str = "partitions_def",
) -> Callable[[Callable[..., Any]], dg.AssetsDefinition]:
    """An MSQ Druid asset: ``sql`` (text or a ``Path``) is rendered per partition by the core (docs/msq.md)."""
    wait = options or WaitOptions()
    template = MsqTemplate(sql, datasource, dict(query_context or {}), dict(variables or {}), idempotency_key,
                           allow_overwrite_all, wait.allow_empty,
                           timezone=str(getattr(partitions_def, "timezone", "UTC")))  # the refusal's words
    return build_assets(template, partitions_def, name=name, pool=pool, resource_key=resource_key, options=wait,
                  translator=translator, deps=deps, retry_policy=retry_policy, field=partitions_field)


def druid_handoff_check(assets_def: dg.AssetsDefinition, options: WaitOptions | None = None,
                        pool: str | None = None) -> dg.AssetChecksDefinition:
    """The blocking ``segments_queryable`` check of a ``@druid_assets`` asset (its own step: no pool slot)."""
    (key,) = assets_def.keys
    spec = assets_def.specs_by_key[key]
    found = spec.metadata.get(RESOURCE_KEY, "druid")
    resource_key = str(getattr(found, "value", found))
    partitions_def = assets_def.partitions_def
    if partitions_def is None:
        raise ValueError(f"{key.to_user_string()} has no partitions: it is not a @druid_assets asset")
    return handoff_check(key, partitions_def, resource_key, options or WaitOptions(), pool=pool)
