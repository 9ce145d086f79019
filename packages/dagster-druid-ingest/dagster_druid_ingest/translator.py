"""``DagsterDruidTranslator``: what a Druid datasource looks like as a Dagster asset (the dagster-dbt pattern).

The decorator and the Component hand the translator a :class:`DruidAssetProps` (facts of the first partition's
plan, made when the definitions load) and use the ``AssetSpec`` it returns. Override ``get_asset_spec`` and start
from ``super().get_asset_spec(props)`` (``.replace_attributes(...)``/``.merge_attributes(...)``) to change keys,
groups, owners, descriptions or metadata; the ``druid`` kind and the ``druid/`` metadata keys are the defaults.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import dagster as dg
from druid_ingest.planning import Plan

__all__ = ["DagsterDruidTranslator", "DruidAssetProps"]


@dataclass(frozen=True)
class DruidAssetProps:
    """One Druid datasource as planned: the translator's input."""

    datasource: str
    flavour: str  # "native" (a task spec) or "msq" (an SQL statement)
    mode: str
    peak_slots: int
    partitions_def: dg.PartitionsDefinition | None = None
    deps: Sequence[dg.AssetKey] = field(default_factory=tuple)

    @classmethod
    def of_plan(cls, plan: Plan, partitions_def: dg.PartitionsDefinition | None = None,
                deps: Sequence[dg.AssetKey] = ()) -> "DruidAssetProps":
        flavour = plan.kind
        return cls(plan.datasource, flavour, plan.mode, plan.peak_slots, partitions_def, tuple(deps))


class DagsterDruidTranslator:
    """Default mapping: key = the datasource name, kind ``druid``, ``druid/`` metadata; no group or owners."""

    def get_asset_spec(self, props: DruidAssetProps) -> dg.AssetSpec:
        what = "an MSQ statement" if props.flavour == "msq" else "a native batch task"
        return dg.AssetSpec(
            key=dg.AssetKey([props.datasource]),
            kinds={"druid"},
            deps=list(props.deps),
            partitions_def=props.partitions_def,
            description=(f"Druid datasource {props.datasource!r}, ingested by {what} per partition "
                         f"({props.mode}); its check 'segments_queryable' says when a partition is queryable."),
            metadata={"druid/datasource": props.datasource, "druid/flavour": props.flavour,
                      "druid/mode": props.mode, "druid/peak_slots": props.peak_slots},
        )
