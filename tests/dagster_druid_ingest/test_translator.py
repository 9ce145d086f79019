"""``DagsterDruidTranslator``: the default asset spec of a Druid datasource, and a subclass changing it."""

import dagster as dg
from dagster_druid_ingest import DagsterDruidTranslator, DruidAssetProps, DruidIngestion, druid_assets

HOURLY = dg.HourlyPartitionsDefinition(start_date="2026-11-01-00:00")


def hour_spec(spec):
    out = spec()
    out["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = "HOUR"
    return out


def test_default_spec_is_keyed_by_datasource_with_the_druid_kind_and_metadata() -> None:
    props = DruidAssetProps("events", "native", "REPLACE", 3, HOURLY, (dg.AssetKey("raw"),))
    spec = DagsterDruidTranslator().get_asset_spec(props)
    assert spec.key == dg.AssetKey(["events"]) and spec.kinds == {"druid"}
    assert spec.partitions_def is HOURLY and {d.asset_key for d in spec.deps} == {dg.AssetKey("raw")}
    assert spec.metadata == {"druid/datasource": "events", "druid/flavour": "native", "druid/mode": "REPLACE",
                             "druid/peak_slots": 3}
    assert "Druid datasource 'events'" in (spec.description or "") and spec.group_name is None


class Team(DagsterDruidTranslator):
    def get_asset_spec(self, props: DruidAssetProps) -> dg.AssetSpec:
        return super().get_asset_spec(props).replace_attributes(
            key=dg.AssetKey(["druid", props.datasource]), group_name="ingest", owners=["team:data"],
            description=f"{props.datasource} ({props.flavour})")


def test_the_decorator_uses_a_custom_translator(spec) -> None:
    @druid_assets(spec=hour_spec(spec), partitions_def=HOURLY, datasource="dg_tr", translator=Team())
    def events(context: dg.AssetExecutionContext, druid: DruidIngestion):
        return druid.ingest(context)

    (asset_spec,) = events.specs
    assert asset_spec.key == dg.AssetKey(["druid", "dg_tr"]) and asset_spec.group_name == "ingest"
    assert asset_spec.owners == ["team:data"] and asset_spec.description == "dg_tr (native)"
    assert asset_spec.kinds == {"druid"} and asset_spec.metadata["druid/peak_slots"] == 1
    assert events.partitions_def == HOURLY and events.op.name == "events"
