"""DruidIngestionTrigger: the task wait and the handoff wait in one deferral, one event, one trigger log."""

from __future__ import annotations

import asyncio
import logging
import time

from druid_ingest.ops._outcomes import IngestionOutcome
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.triggers.ingestion import DruidIngestionTrigger

from ..helpers import FAST, first_event, import_string, posts, submit

DAY = ["2024-01-01/2024-01-02"]


async def test_one_event_holds_both_waits_and_one_log_holds_both(druid_conn, caplog, capsys):
    caplog.set_level(logging.INFO)
    druid_conn.plan_next_task(TaskPlan(duration=0.6))
    druid_task_id = await asyncio.to_thread(submit)
    druid_conn.pause_loading()
    trigger = DruidIngestionTrigger(druid_task_id, datasource="wiki", intervals=DAY, **FAST)
    running = asyncio.ensure_future(first_event(trigger))
    logged = ""  # the triggerer's logger writes through structlog: read what it printed
    deadline = time.time() + 20
    while "Handoff of Druid task" not in logged and time.time() < deadline:
        await asyncio.sleep(0.05)
        logged += capsys.readouterr().out
    druid_conn.resume_loading()
    event = await running
    logged += capsys.readouterr().out + caplog.text
    outcome = IngestionOutcome.from_dict(event)
    assert outcome.kind == "success" and outcome.task.kind == "success", event
    assert outcome.handoff is not None and outcome.handoff.result.state == "loaded"
    mine = [line for line in logged.splitlines() if "DruidIngestionTrigger" in line]
    assert any(f"Druid task {druid_task_id} RUNNING" in m for m in mine)  # the task wait's progress...
    assert any("Handoff of Druid task" in m for m in mine)  # ...and the handoff wait's, in one trigger's log
    assert len(posts(druid_conn)) == 1


async def test_failed_task_ends_without_a_handoff_wait(druid_conn):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="bad row"))
    druid_task_id = await asyncio.to_thread(submit)
    event = await first_event(DruidIngestionTrigger(druid_task_id, datasource="wiki", intervals=DAY, **FAST))
    assert event["status"] == "failed" and event["handoff"] is None and "bad row" in event["message"]
    handoff_reads = [r for r in druid_conn.requests if "/metadata/datasources/" in r.path]
    assert handoff_reads == []


async def test_rebuilt_in_the_handoff_phase_resumes_and_times_out_by_its_own_clock(druid_conn):
    druid_task_id = await asyncio.to_thread(submit)
    druid_conn.pause_loading()
    trigger = DruidIngestionTrigger(druid_task_id, datasource="wiki", intervals=DAY, handoff_timeout=0.4, **FAST)
    classpath, kwargs = trigger.serialize()
    assert all(isinstance(v, str | int | float | bool | list | dict | type(None)) for v in kwargs.values())
    rebuilt = import_string(classpath)(**kwargs)
    assert rebuilt.serialize() == (classpath, kwargs)
    started = time.time()
    event = await first_event(rebuilt)
    assert event["status"] == "timeout" and event["task"]["status"] == "success", event
    assert time.time() - started < 5
    druid_conn.resume_loading()
    event = await first_event(import_string(classpath)(**{**kwargs, "handoff_timeout": 10.0}))
    assert event["status"] == "success" and len(posts(druid_conn)) == 1
