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
    flavour: str  # the plan's kind: "native" (a task spec), "msq" (an SQL statement), "compaction"
    mode: str
    peak_slots: int
    partitions_def: dg.PartitionsDefinition | None = None
    deps: Sequence[dg.AssetKey] = field(default_factory=tuple)

    @classmethod
    def of_plan(cls, plan: Plan, partitions_def: dg.PartitionsDefinition | None = None,
                deps: Sequence[dg.AssetKey] = ()) -> "DruidAssetProps":
        flavour = plan.kind
        return cls(plan.datasource, flavour, plan.mode, plan.peak_slots, partitions_def, tuple(deps))


#: how each kind of work is named in an asset's description
_WORK = {"native": "a native batch task", "msq": "an MSQ statement", "compaction": "a compaction task"}


class DagsterDruidTranslator:
    """Default mapping: key = the datasource name, kind ``druid``, ``druid/`` metadata; no group or owners."""

    def get_asset_spec(self, props: DruidAssetProps) -> dg.AssetSpec:
        what = _WORK.get(props.flavour, "a native batch task")
        compacted = props.flavour == "compaction"  # the datasource's own key is its ingesting asset's
        return dg.AssetSpec(
            key=dg.AssetKey([props.datasource, "compacted"] if compacted else [props.datasource]),
            kinds={"druid"},
            deps=list(props.deps),
            partitions_def=props.partitions_def,
            description=(f"Druid datasource {props.datasource!r}, written by {what} per partition "
                         f"({props.mode}); its check 'segments_queryable' says when a partition is queryable."),
            metadata={"druid/datasource": props.datasource, "druid/flavour": props.flavour,
                      "druid/mode": props.mode, "druid/peak_slots": props.peak_slots},
        )
