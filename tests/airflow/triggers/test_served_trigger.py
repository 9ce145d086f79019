"""``DruidServedTrigger`` driven by Airflow's own shared-stream manager (ack mode), against the fake Druid over
real HTTP. The one stand-in is the supervisor channel the triggerer's asset state store speaks through
(``SUPERVISOR_COMMS``): a dict answering its get/set messages, so a test can "restart the triggerer" by building
a new manager over the same store.

What it shows: the cursor is kept only after an event is confirmed stored; an event never confirmed is reported
again by the next watcher (at least once), one confirmed is not (no repeat); a quiet look is one request."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from airflow.sdk import Asset
from airflow.sdk.execution_time import task_runner
from airflow.sdk.execution_time.context import AssetStateStoreAccessors
from airflow.triggers.shared_stream import SharedStreamManager
from druid_ingest.errors import DruidUsageError
from druid_ingest.ops import watch_window
from druid_ingest.planning import build_drop_plan, build_plan

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.triggers.served import CURSOR_KEY, DruidServedTrigger, druid_served_asset
from tests.druid_ingest.sample_specs import day_spec

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "dev" / "airflow"))
from state_store_channel import StateStoreChannel

DS = "events_web"
ASSET = "events_web_served"
SERVED_READ = f"/druid/coordinator/v1/datasources/{DS}/intervals/"


class Channel(StateStoreChannel):
    """The shared stand-in (dev/airflow/state_store_channel.py), reading back the watch's cursor."""

    def cursor(self) -> dict[str, Any] | None:
        key = CURSOR_KEY.format(conn_id="druid_cluster_default", datasource=DS, window=watch_window(None))
        return self.values.get((ASSET, key))


@pytest.fixture
def channel(monkeypatch: pytest.MonkeyPatch) -> Channel:
    store = Channel()
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", store, raising=False)
    return store


def ingest(*days: str) -> None:
    with DruidHook().get_client() as client:
        for day in days:
            client.ingest(build_plan(day_spec(day)), task_timeout=20, handoff_timeout=20)


def watcher(**kw: Any) -> DruidServedTrigger:
    trigger = DruidServedTrigger(datasource=DS, asset=ASSET, poll_interval=1, **kw)
    trigger.asset_state_store = AssetStateStoreAccessors(inlets=[Asset(name=ASSET)])
    return trigger


class Triggerer:
    """The part of Airflow's TriggerRunner a watcher meets: subscribe, filter, bind, then confirm once stored."""

    def __init__(self, trigger: DruidServedTrigger, confirm: bool = True) -> None:
        self.trigger, self.confirm = trigger, confirm
        self.manager = SharedStreamManager(ack_timeout=30)
        self.key = trigger.shared_stream_key()
        self.events: list[dict[str, Any]] = []

    async def until(self, n: int, timeout: float = 20) -> list[dict[str, Any]]:
        """Run until ``n`` events were emitted (each confirmed stored unless ``confirm=False``), then stop."""
        stream = self.manager.subscribe(trigger_id=1, trigger=self.trigger, key=self.key)
        events = self.trigger.filter_shared_stream(stream)

        async def consume() -> None:
            async for event in events:
                seq = self.manager.bind_pending_event(trigger_id=1, key=self.key)
                self.events.append(event.payload)
                if self.confirm and seq is not None:
                    await asyncio.sleep(0.05)  # one state sync later
                    self.manager.confirm_persisted([seq])
                if len(self.events) >= n:
                    await asyncio.sleep(0.3)  # the advance pump keeps the cursor
                    return

        try:
            await asyncio.wait_for(consume(), timeout)
        finally:
            await self.manager.unsubscribe(1, self.key)
            await self.manager.stop_all()
        return self.events

    async def quiet_for(self, seconds: float) -> list[dict[str, Any]]:
        """Run ``seconds`` and return what was emitted (nothing expected)."""
        try:
            return await self.until(10**6, timeout=seconds)
        except TimeoutError:
            return self.events


def test_first_look_reports_what_is_served_and_keeps_the_cursor_once_stored(druid_conn, channel) -> None:
    ingest("2026-11-01")
    [event] = asyncio.run(Triggerer(watcher()).until(1))
    assert [(c["kind"], c["interval"][:10], c["writer"]) for c in event["changes"]] == [
        ("served", "2026-11-01", "ingestion")]
    assert event["datasource"] == DS and ">" in event["key"]
    assert channel.cursor() is not None and channel.cursor()["served"] == event["key"].split(">")[1]


def test_a_restart_after_the_cursor_was_kept_reports_only_the_next_change(druid_conn, channel) -> None:
    ingest("2026-11-01")
    asyncio.run(Triggerer(watcher()).until(1))
    ingest("2026-11-02")  # while no triggerer runs
    [event] = asyncio.run(Triggerer(watcher()).until(1))  # the successor, from the kept cursor
    assert [c["interval"][:10] for c in event["changes"]] == ["2026-11-02"]


def test_an_event_never_confirmed_stored_is_reported_again(druid_conn, channel) -> None:
    ingest("2026-11-01")
    [lost] = asyncio.run(Triggerer(watcher(), confirm=False).until(1))  # killed before Airflow stored it
    assert channel.cursor() is None  # the cursor did not move past it
    [again] = asyncio.run(Triggerer(watcher()).until(1))
    assert again == lost


def test_a_quiet_watch_costs_one_request_per_look_and_emits_nothing(druid_conn, channel) -> None:
    ingest("2026-11-01")
    asyncio.run(Triggerer(watcher()).until(1))
    before = len(druid_conn.requests)
    assert asyncio.run(Triggerer(watcher()).quiet_for(3.5)) == []
    looks = [r for r in druid_conn.requests[before:]]
    assert looks and all(r.path.startswith(SERVED_READ) for r in looks), [r.path for r in looks]
    assert 2 <= len(looks) <= 5  # about one per second (fewer on a loaded machine), each a single read


def test_from_now_records_what_is_served_then_reports_only_what_comes(druid_conn, channel) -> None:
    ingest("2026-11-01")
    assert asyncio.run(Triggerer(watcher(from_now=True)).quiet_for(2.5)) == []
    assert channel.cursor() is not None  # the baseline is kept: a restart does not report the old day either
    ingest("2026-11-02")
    [event] = asyncio.run(Triggerer(watcher(from_now=True)).until(1))
    assert [c["interval"][:10] for c in event["changes"]] == ["2026-11-02"]


def test_a_drop_fires_only_a_watcher_asked_for_drops(druid_conn, channel) -> None:
    ingest("2026-11-01")
    asyncio.run(Triggerer(watcher()).until(1))
    with DruidHook().get_client() as client:
        client.segment_write(build_drop_plan(DS, "2026-11-01/2026-11-02"), timeout=20)
    assert asyncio.run(Triggerer(watcher()).quiet_for(2.5)) == []  # the default: served and appended only
    cursor = channel.cursor()
    assert cursor is not None and cursor["chunks"] == []  # the drop was seen, and passed without an event
    ingest("2026-11-03")
    asyncio.run(Triggerer(watcher()).until(1))  # 2026-11-03 served (a drop of it unseen would be no change)
    with DruidHook().get_client() as client:
        client.segment_write(build_drop_plan(DS, "2026-11-03/2026-11-04"), timeout=20)
    events = asyncio.run(Triggerer(watcher(on=["dropped"])).until(1))
    assert [(c["kind"], c["interval"][:10]) for c in events[0]["changes"]] == [("dropped", "2026-11-03")]


def test_the_asset_must_be_the_watched_one(druid_conn, channel) -> None:
    trigger = DruidServedTrigger(datasource=DS, asset="another_asset", poll_interval=1)
    trigger.asset_state_store = AssetStateStoreAccessors(inlets=[Asset(name=ASSET)])
    with pytest.raises(DruidUsageError, match=r"asset='another_asset'.*druid_served_asset"):
        asyncio.run(Triggerer(trigger).until(1, timeout=5))


@pytest.mark.parametrize(("kw", "field"), [
    ({"datasource": ""}, "datasource=''"),
    ({"asset": " "}, "asset=' '"),
    ({"poll_interval": 0}, "poll_interval=0"),
    ({"poll_interval": True}, "poll_interval=True"),
    ({"on": ["served", "loaded"]}, "on=\\['served', 'loaded'\\]"),
    ({"on": "served"}, "on='served'"),
    ({"window": "yesterday"}, "window 'yesterday'"),
])
def test_bad_arguments_fail_in_the_dag_file_naming_the_field(kw: dict[str, Any], field: str) -> None:
    args: dict[str, Any] = {"datasource": DS, "asset": ASSET, **kw}
    with pytest.raises(DruidUsageError, match=field):
        DruidServedTrigger(**args)


def test_serialize_round_trips_and_the_helper_names_the_asset_once() -> None:
    asset = druid_served_asset(ASSET, datasource=DS, window="2026-01-01/2027-01-01", poll_interval=10,
                               on=["dropped", "served"])
    [watch] = asset.watchers
    classpath, kwargs = watch.trigger.serialize()
    assert classpath == "airflow_provider_druid_ingest.triggers.served.DruidServedTrigger"
    assert kwargs["asset"] == asset.name == ASSET and kwargs["on"] == ["served", "dropped"]
    assert kwargs["window"] == "2026-01-01T00:00:00.000Z/2027-01-01T00:00:00.000Z"
    assert DruidServedTrigger(**kwargs).serialize() == (classpath, kwargs)
