"""The handoff gate as a blocking, partitioned asset check, against the fake Druid over real sockets."""

import threading
import time
from typing import Any

import dagster as dg
import pytest
from dagster_druid_ingest import druid_daily_asset
from druid_ingest.testing import FakeDruid

from tests.dagster_druid_ingest.conftest import DAY, LOCATION, fast_resource, materialize
from tests.druid_ingest.gate_looks import assert_learned, assert_on_core_looks, gate_looks, looks_fake, plant
from tests.druid_ingest.testing.waiting import wait_until

pytestmark = pytest.mark.timeout(60)


def metadata_lookups(fake: FakeDruid, datasource: str) -> int:
    return len(fake.requests_matching("POST", f"/druid/coordinator/v1/metadata/datasources/{datasource}/segments"))


def downstream_of(events: Any, fake: FakeDruid, seen: dict[str, Any]) -> dg.AssetsDefinition:
    """A downstream asset that records what was served when it ran (if it ran)."""
    datasource = events.plan.datasource

    @dg.asset(name=f"{datasource}_report", partitions_def=events.partitions_def, deps=[events.asset])
    def report() -> None:
        seen["served"] = len(fake.served_segment_ids(datasource))
        seen["at"] = time.monotonic()

    return report


def check_alone(events: Any, druid: Any, **kwargs: Any) -> dg.ExecuteInProcessResult:
    """A run of just the check for ``DAY``. Dagster 1.13 cannot derive a partitions definition from a selection
    of checks only, so the partition goes in as the run tag every partitioned run carries."""
    return dg.materialize([events.asset, events.check], selection=dg.AssetSelection.checks(events.check),
                          resources={"druid": druid}, tags={"dagster/partition": DAY}, raise_on_error=False,
                          **kwargs)


def test_the_check_blocks_until_the_segments_load(fake_druid: FakeDruid, druid, spec) -> None:
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_gate")
    seen: dict[str, Any] = {}
    fake_druid.pause_loading()
    box: dict[str, dg.ExecuteInProcessResult] = {}
    run = threading.Thread(target=lambda: box.update(
        result=materialize([events.asset, events.check, downstream_of(events, fake_druid, seen)], druid)))
    run.start()
    wait_until(lambda: metadata_lookups(fake_druid, "dg_gate") >= 4, timeout=20)  # the check is polling
    time.sleep(0.5)
    assert run.is_alive() and seen == {}  # neither the check nor the downstream asset has finished
    resumed = time.monotonic()
    fake_druid.resume_loading()
    run.join(30)
    result = box["result"]
    assert result.success
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.partition == DAY
    assert check.metadata["druid/handoff_state"].value == "loaded" and check.metadata["druid/waited_s"].value >= 0.5
    assert seen["served"] >= 1 and seen["at"] > resumed  # downstream ran only after the data was queryable


def test_segments_that_never_load_fail_the_check_and_block_downstream(fake_druid: FakeDruid, druid, spec) -> None:
    fake_druid.set_rules("dg_never", [{"type": "loadForever", "tieredReplicants": {"_default_tier": 0}}])
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_never")
    seen: dict[str, Any] = {}
    result = materialize([events.asset, events.check, downstream_of(events, fake_druid, seen)], druid)
    assert not result.success and seen == {}
    (check,) = result.get_asset_check_evaluations()
    assert not check.passed and "will never load" in check.description
    assert check.metadata["druid/handoff_state"].value == "never"


def test_on_never_pass_accepts_deep_storage_only_data(fake_druid: FakeDruid, druid, spec) -> None:
    fake_druid.set_rules("dg_cold", [{"type": "loadForever", "tieredReplicants": {"_default_tier": 0}}])
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_cold",
                               on_never="pass")
    result = materialize([events.asset, events.check], druid)
    assert result.success
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.metadata["druid/handoff_state"].value == "never"


def test_a_timed_out_check_fails_and_rerunning_it_alone_passes_without_a_new_task(fake_druid: FakeDruid, druid,
                                                                                spec) -> None:
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_slow",
                               handoff_timeout=0.5)
    instance = dg.DagsterInstance.ephemeral()
    fake_druid.pause_loading()
    result = materialize([events.asset, events.check], druid, instance=instance)
    assert not result.success
    (check,) = result.get_asset_check_evaluations()
    assert not check.passed and "not queryable in time" in check.description
    fake_druid.resume_loading()
    again = check_alone(events, druid, instance=instance)
    assert again.success and again.asset_materializations_for_node("dg_slow") == []
    (check,) = again.get_asset_check_evaluations()
    assert check.passed
    assert len([r for r in fake_druid.submit_requests()
                if r.path == "/druid/indexer/v1/task"]) == 1


def test_a_check_of_a_never_materialized_partition_fails(fake_druid: FakeDruid, druid, spec) -> None:
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_none")
    result = check_alone(events, druid)
    (check,) = result.get_asset_check_evaluations()
    assert not check.passed and "no Druid materialization" in check.description
    assert fake_druid.requests == []


def test_the_blocking_check_looks_on_the_cores_handoff_looks_and_learns(monkeypatch, spec) -> None:
    """The asset's one look as it materializes, then the check's looks placed from the task's end (the target it
    reads back from the materialization carries it), a step apart through the learned window."""
    with looks_fake() as fake:
        druid = fast_resource(fake.url, poll_interval=1.0, max_poll_interval=5.0)
        with druid.get_client() as client:
            cluster = client.wait_memory.cluster
        memory = plant(monkeypatch, cluster, "dg_looks")
        events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_looks")
        result = materialize([events.asset, events.check], druid)
        assert result.success
        (check,) = result.get_asset_check_evaluations()
        assert check.passed and check.metadata["druid/handoff_state"].value == "loaded"
        _materialized, *checked = gate_looks(fake, "dg_looks")  # the asset's look, then the check's
        with druid.get_client() as client:
            task_id = check.metadata["druid/task_id"].value
            target = client.handoff_target(task_id, "dg_looks", [])
        assert target.ended_at is not None
        assert_on_core_looks(checked, target.ended_at)
    assert_learned(memory, cluster, "dg_looks")
