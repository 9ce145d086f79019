"""DruidHandoffTrigger over real sockets against FakeDruid."""

from __future__ import annotations

import asyncio
import time

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

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
