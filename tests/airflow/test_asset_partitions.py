"""Partitioned-asset events: a partitioned run's Druid Asset event carries the run's partition key (Airflow 3.3's
``add_partitions``); an unpartitioned run's stays unkeyed; an accessor without ``add_partitions`` (Airflow 3.2)
keeps today's event. Against the fake over real sockets; only the outlet-events accessor differs per test."""

from __future__ import annotations

from typing import Any

import pytest
from airflow.sdk import Asset
from airflow.sdk.execution_time.context import OutletEventAccessors
from airflow.sdk.execution_time.task_runner import _serialize_outlet_events

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor

from .helpers import DAY, FAST, spec

URI = "druid://druid_cluster_default/wiki"
KEY = "2026-07-16T00:00:00"


class Airflow32Accessor:
    """What Airflow 3.2's outlet-event accessor offers a task: ``extra`` only, no partition API."""

    def __init__(self) -> None:
        self.extra: dict[str, Any] = {}


class Airflow32Accessors(dict):
    def __missing__(self, asset: Asset) -> Airflow32Accessor:
        self[asset] = Airflow32Accessor()
        return self[asset]


def _ingest(context: dict) -> str:
    return DruidIngestOperator(task_id="i", spec=spec(), intervals=[DAY], deferrable=False, **FAST).execute(context)


def _serialized(events: OutletEventAccessors) -> list[dict]:
    """What the task runner sends the API server for these outlet events (one row per partition key)."""
    return list(_serialize_outlet_events(events))


def test_partitioned_run_emits_the_runs_partition_key(druid_conn, context):
    ctx = {**context, "outlet_events": OutletEventAccessors(), "partition_key": KEY}
    druid_task_id = _ingest(ctx)
    accessor = ctx["outlet_events"][Asset(URI)]
    assert accessor.partition_keys == {KEY}
    assert accessor.extra["partition_key"] == KEY and accessor.extra["druid_task_id"] == druid_task_id
    rows = _serialized(ctx["outlet_events"])
    assert [(r["dest_asset_key"]["uri"], r["partition_key"]) for r in rows] == [(URI, KEY)]


def test_unpartitioned_run_emits_an_unkeyed_event(druid_conn, context):
    """No key is invented: a keyed event would not schedule a non-partitioned consumer (AssetManager)."""
    for key in (None, "", "  "):
        ctx = {**context, "outlet_events": OutletEventAccessors(), "partition_key": key}
        druid_task_id = _ingest(ctx)
        accessor = ctx["outlet_events"][Asset(URI)]
        assert accessor.partition_keys == set()
        assert "partition_key" not in accessor.extra and accessor.extra["druid_task_id"] == druid_task_id
        assert [r.get("partition_key") for r in _serialized(ctx["outlet_events"])] == [None]


def test_without_the_partition_api_the_event_keeps_its_extra(druid_conn, context):
    """Airflow 3.2: the accessor has no ``add_partitions``; the extra still says the partition, nothing fails."""
    ctx = {**context, "outlet_events": Airflow32Accessors(), "partition_key": KEY}
    druid_task_id = _ingest(ctx)
    extra = ctx["outlet_events"][Asset(URI)].extra
    assert extra["druid_task_id"] == druid_task_id and extra["partition_key"] == KEY
    assert not hasattr(ctx["outlet_events"][Asset(URI)], "partition_keys")


def test_handoff_sensor_keys_its_event_too(druid_conn, context):
    from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
    from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

    ctx = {**context, "outlet_events": OutletEventAccessors(), "partition_key": KEY}
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec(), intervals=[DAY]).execute(ctx)
    DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1).execute(ctx)
    sensor = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, datasource="wiki", deferrable=False,
                                poke_interval=0.1, timeout=10)
    assert sensor.execute(ctx) == druid_task_id
    assert ctx["outlet_events"][Asset(URI)].partition_keys == {KEY}


@pytest.mark.parametrize("bad", [None, 5, ""])
def test_run_partition_key_reads_only_a_real_key(bad):
    from airflow_provider_druid_ingest.common.assets import run_partition_key

    assert run_partition_key({"partition_key": bad}) is None
    assert run_partition_key({"partition_key": KEY}) == KEY
    assert run_partition_key(object()) is None


def test_partitioned_run_without_intervals_warns_that_it_ingests_the_specs_own(druid_conn, capsys):
    """A partitioned run has no data interval: the spec's own intervals are used, and the log says so."""
    ctx = {"outlet_events": OutletEventAccessors(), "partition_key": KEY, "data_interval_start": None,
           "data_interval_end": None}
    capsys.readouterr()
    plan = DruidIngestOperator(task_id="i", spec=spec(intervals=[DAY]), **FAST).plan(ctx)
    assert list(plan.intervals) == [DAY]
    logged = capsys.readouterr().out
    assert f"partitioned run (partition_key={KEY!r}) has no data interval" in logged and "intervals=" in logged
    DruidIngestOperator(task_id="i", spec=spec(), intervals=[DAY], **FAST).plan(ctx)
    assert "has no data interval" not in capsys.readouterr().out  # intervals= given: nothing to say
