"""``druid_compaction_assets``: the core's compaction plan on the Dagster face's generic asset step, against the
fake Druid. A month partition is compacted into one MONTH segment, green once served; a re-materialization adopts
the same compaction; a partitioning whose windows are off the granularity fails at definition time."""

from __future__ import annotations

import dagster as dg
import pytest
from dagster_druid_ingest import DruidIngestion, WaitOptions, druid_compaction_assets, druid_handoff_check
from druid_ingest.clients import DruidClient
from druid_ingest.errors import SpecValidationError
from druid_ingest.testing import FakeDruid
from druid_ingest.wire import ClusterConfig

from tests.druid_ingest.sample_specs import day_spec

from .conftest import fast_resource, materialize

MONTHLY = dg.MonthlyPartitionsDefinition(start_date="2026-10-01")
MONTH = "2026-11-01T00:00:00.000Z/2026-12-01T00:00:00.000Z"


def test_a_month_is_compacted_green_once_served_and_a_rematerialization_adopts_it(fake_druid: FakeDruid) -> None:
    with DruidClient(ClusterConfig(url=fake_druid.url)) as client:
        for day in ("2026-11-02", "2026-11-03"):
            client.ingest(day_spec(day), task_timeout=20, handoff_timeout=20)

    @druid_compaction_assets(datasource="events_web", partitions_def=MONTHLY, segment_granularity="MONTH")
    def events_compacted(context: dg.AssetExecutionContext, druid: DruidIngestion):
        return druid.ingest(context)

    (spec,) = events_compacted.specs
    assert spec.key == dg.AssetKey(["events_web", "compacted"]) and "a compaction task" in (spec.description or "")
    druid = fast_resource(fake_druid.url)
    gate = druid_handoff_check(events_compacted)  # the blocking check: green once the MONTH segment is served
    first = materialize([events_compacted, gate], druid, partition="2026-11-01")
    assert first.success, first.all_events
    [check] = first.get_asset_check_evaluations()
    assert check.passed, check.metadata
    again = materialize([events_compacted], druid, partition="2026-11-01")
    assert again.success
    posts = [r for r in fake_druid.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task"]
    assert len(posts) == 3  # two days ingested, one compaction: the re-materialization adopted it
    [event] = first.get_asset_materialization_events()
    task_id = str(event.materialization.metadata["druid/task_id"].value)
    assert task_id.startswith("compact_events_web_20261101-20261201_")
    month = fake_druid.task(task_id).segments
    assert [s["interval"] for s in month] == [MONTH]
    assert {s["identifier"] for s in month} <= set(fake_druid.served_segment_ids("events_web"))


def test_nothing_to_compact_fails_without_retries_and_allow_empty_is_a_green_step(fake_druid: FakeDruid) -> None:
    """No used segment in the month: the core's DruidNothingToCompactError fails the step for good; with
    ``allow_empty`` the step is green ("nothing to compact", no handoff target), its check passes, and the
    re-materialization adopts the same FAILED task."""
    druid = fast_resource(fake_druid.url)

    @druid_compaction_assets(datasource="events_web", partitions_def=MONTHLY, segment_granularity="MONTH",
                             name="strict")
    def strict(context: dg.AssetExecutionContext, druid: DruidIngestion):
        return druid.ingest(context)

    failed = materialize([strict], druid, partition="2026-11-01")
    assert not failed.success
    [failure] = [e for e in failed.all_events if e.event_type_value == "STEP_FAILURE"]
    text = str(failure.event_specific_data.error.message)  # type: ignore[union-attr]
    assert "Nothing to compact: datasource 'events_web' holds no used segment in 2026-11-01" in text

    @druid_compaction_assets(datasource="events_web", partitions_def=MONTHLY, segment_granularity="MONTH",
                             options=WaitOptions(allow_empty=True), name="lenient")
    def lenient(context: dg.AssetExecutionContext, druid: DruidIngestion):
        return druid.ingest(context)

    green = materialize([lenient, druid_handoff_check(lenient, WaitOptions(allow_empty=True))], druid,
                        partition="2026-11-01")
    assert green.success, green.all_events
    [event] = green.get_asset_materialization_events()
    assert event.materialization.metadata["druid/outcome"].value == "nothing to compact"
    [check] = green.get_asset_check_evaluations()
    assert check.passed and "nothing to compact" in (check.description or "")
    posts = [r for r in fake_druid.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task"]
    assert len(posts) == 1  # the step that failed and the green one: one compaction task, adopted


def test_windows_off_the_granularity_fail_when_the_definitions_load() -> None:
    with pytest.raises(SpecValidationError, match="MONTH buckets"):
        druid_compaction_assets(datasource="events_web", partitions_def=dg.DailyPartitionsDefinition("2026-10-01"),
                                segment_granularity="MONTH")
