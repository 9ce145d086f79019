"""DruidHandoffTrigger over real sockets against FakeDruid."""

from __future__ import annotations

import asyncio
import time

from druid_ingest.ops import PollSchedule

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger
from tests.druid_ingest.gate_looks import assert_learned, assert_on_core_looks, gate_looks, looks_fake, plant

from ..conftest import PASSWORD, USER, conn_json
from ..helpers import FAST, first_event, import_string, submit


async def test_handoff_trigger_success_and_timeout(druid_conn):
    druid_conn.pause_loading()  # before the task ends, so its segments cannot load in between
    druid_task_id = await asyncio.to_thread(submit)
    assert (await first_event(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST)))["status"] == "success"
    with DruidHook().get_client() as client:
        target = client.handoff_target(druid_task_id, "wiki", ["2024-01-01/2024-01-02"])
    paused = DruidHandoffTrigger(target=target.to_dict(), end_time=time.time() + 0.3, **FAST)
    event = await first_event(paused)
    assert event["status"] == "timeout", event
    druid_conn.resume_loading()
    classpath, kwargs = paused.serialize()
    kwargs["end_time"] = time.time() + 10
    event = await first_event(import_string(classpath)(**kwargs))
    assert event["status"] == "success", event
    assert event["result"]["state"] == "loaded"


async def test_the_trigger_looks_on_the_cores_handoff_looks_and_learns(monkeypatch):
    """The triggerer's handoff wait is the core's: its first look at the planned time after the task's end (not at
    once), a step apart through the learned window, and the delay it saw kept for the next wait."""
    with looks_fake(auth={USER: (PASSWORD, "write")}) as fake:
        monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url))
        with DruidHook().get_client() as client:
            memory = plant(monkeypatch, client.wait_memory.cluster, "wiki")
            task_id = await asyncio.to_thread(submit)
            await asyncio.to_thread(client.wait_for_task, task_id, 20, PollSchedule(0.05, 0.1))
            target = client.handoff_target(task_id, "wiki", ["2024-01-01/2024-01-02"])
            cluster = client.wait_memory.cluster
        assert target.ended_at is not None
        trigger = DruidHandoffTrigger(target=target.to_dict(), end_time=time.time() + 30, poll_interval=1.0,
                                      max_poll_interval=5.0)
        event = await first_event(trigger)
    assert event["status"] == "success" and event["result"]["state"] == "loaded", event
    assert_on_core_looks(gate_looks(fake, "wiki"), target.ended_at)
    assert_learned(memory, cluster, "wiki")
