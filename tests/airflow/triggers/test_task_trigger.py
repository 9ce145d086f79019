"""DruidTaskTrigger over real sockets against FakeDruid: one event per outcome, restarts, kills."""

from __future__ import annotations

import asyncio
import time

import pytest
from druid_ingest.testing import TaskPlan

from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger
from tests.net import free_port

from ..conftest import PASSWORD, conn_json
from ..helpers import FAST, first_event, import_string, posts, shutdowns, submit


def test_serialize_round_trip_has_only_primitives_and_no_task_id():
    for trigger in (
        DruidTaskTrigger(druid_task_id="ingest_x_1", conn_id="c", end_time=123.0, retry={"max_attempts": 2}),
        DruidHandoffTrigger(
            target={"task_id": "ingest_x_1", "datasource": "wiki", "intervals": ["2024-01-01/2024-01-02"],
                    "min_version": "2024-05-01T00:00:00.000Z", "append": False, "segments_published": 1},
            conn_id="c", end_time=123.0,
        ),
    ):
        classpath, kwargs = trigger.serialize()
        assert classpath.startswith("airflow_provider_druid_ingest.triggers.")
        assert "task_id" not in kwargs
        assert import_string(classpath)(**kwargs).serialize() == (classpath, kwargs)
        assert all(isinstance(v, str | int | float | bool | dict | type(None)) for v in kwargs.values())
    trigger = DruidTaskTrigger(druid_task_id="x")
    assert trigger.task_id is None and trigger.druid_task_id == "x"  # BaseTrigger owns `task_id`, we don't touch it


async def test_success_event_with_report_summary(druid_conn):
    # The fixture's 0.3 s task could end before a loaded machine's first look, leaving no lock to see (the
    # ceiling is then rightly None): 2 s keeps "the trigger saw the task holding its lock" true under load.
    druid_conn.plan_next_task(TaskPlan(duration=2.0))
    druid_task_id = await asyncio.to_thread(submit)
    event = await first_event(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST))
    assert event["status"] == "success", event
    assert event["druid_task_id"] == druid_task_id
    assert set(event) == {"status", "druid_task_id", "message", "summary", "summary_text", "version_ceiling",
                          "fatal", "error_classes"}
    assert isinstance(event["summary"], dict) and event["summary_text"]
    assert event["version_ceiling"]  # the trigger saw the task holding its lock


async def test_failed_event_carries_error_and_summary(druid_conn):
    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="Max parse exceptions exceeded", unparseable=3))
    druid_task_id = await asyncio.to_thread(submit)
    event = await first_event(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST))
    assert event["status"] == "failed"
    assert "Max parse exceptions exceeded" in event["message"]
    assert "Max parse exceptions exceeded" in event["summary"]["error_msg"]  # once: not again in summary_text
    assert "Max parse exceptions exceeded" not in (event["summary_text"] or "")


async def test_rebuilt_trigger_resumes_polling_without_a_second_post(druid_conn):
    druid_conn.plan_next_task(TaskPlan(duration=1.0))
    druid_task_id = await asyncio.to_thread(submit)
    first = DruidTaskTrigger(druid_task_id=druid_task_id, **FAST)
    running = asyncio.ensure_future(first_event(first))
    await asyncio.sleep(0.3)
    assert not running.done()
    running.cancel()  # what a triggerer restart does
    with pytest.raises(asyncio.CancelledError):
        await running
    await first.cleanup()
    classpath, kwargs = first.serialize()
    event = await first_event(import_string(classpath)(**kwargs))
    assert event["status"] == "success"
    assert len(posts(druid_conn)) == 1
    assert shutdowns(druid_conn) == []  # cleanup() never shuts the task down


async def test_timeout_event_when_end_time_passed(druid_conn):
    druid_conn.plan_next_task(TaskPlan(duration=5.0))
    druid_task_id = await asyncio.to_thread(submit)
    event = await first_event(DruidTaskTrigger(druid_task_id=druid_task_id, end_time=time.time() - 1, **FAST))
    assert event["status"] == "timeout"
    assert druid_task_id in event["message"]


async def test_error_event_on_fatal_401(fake, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url, password="wrong-pw"))
    event = await first_event(DruidTaskTrigger(druid_task_id="ingest_wiki_x", **FAST))
    assert event["status"] == "error"
    assert "401" in event["message"]
    assert "wrong-pw" not in event["message"] and PASSWORD not in event["message"]


async def test_error_event_on_unreachable_port(monkeypatch):
    port = free_port()
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(f"http://127.0.0.1:{port}"))
    # a refused connection is an outage the wait rides out until its deadline (issue 27), not the end of it
    trigger = DruidTaskTrigger(druid_task_id="ingest_wiki_x", retry={"max_attempts": 1},
                               end_time=time.time() + 1.0, **FAST)
    event = await first_event(trigger)
    assert event["status"] == "error"
    assert "could not connect" in event["message"]


async def test_on_kill_shuts_down_once_and_honours_flag(druid_conn):
    druid_conn.plan_next_task(TaskPlan(duration=5.0))
    druid_task_id = await asyncio.to_thread(submit)
    await DruidTaskTrigger(druid_task_id=druid_task_id, shutdown_on_kill=False).on_kill()
    assert shutdowns(druid_conn) == []
    await DruidTaskTrigger(druid_task_id=druid_task_id).on_kill()
    assert len(shutdowns(druid_conn)) == 1
    event = await first_event(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST))
    assert event["status"] == "failed"


def _deferred_ti(trigger: DruidTaskTrigger, map_index: int = -1) -> None:
    """What the triggerer sets on a trigger it runs: the deferred task instance it belongs to."""
    from types import SimpleNamespace

    trigger.task_instance = SimpleNamespace(dag_id="d", task_id="ingest", run_id="r1", map_index=map_index)


@pytest.mark.parametrize(("states", "map_index", "shut"), [
    ({"r1": {"ingest": "deferred"}}, -1, 0),  # still deferred: the trigger moved to another triggerer
    ({"r1": {"ingest_3": "deferred"}}, 3, 0),  # the same for a mapped task (Airflow keys it task_id_mapindex)
    ({"r1": {"ingest": "failed"}}, -1, 1),  # a user marked it failed: shut the Druid task down
    ({"r1": {"ingest": "success"}}, -1, 1),  # marked success: the user says it is done
    ({"r1": {"ingest": None}}, -1, 0),  # cleared (issue 27 item 5): the next try adopts the same Druid task
    ({"r1": {"ingest": "scheduled"}}, -1, 0),  # cleared, the next try already on its way
    ({"r1": {"ingest": "queued"}}, -1, 0),
    ({"r1": {"ingest": "running"}}, -1, 0),  # the next try runs (and adopts)
    ({"r1": {"ingest": "restarting"}}, -1, 0),
    ({"r1": {"ingest": "up_for_retry"}}, -1, 0),
    ({}, -1, 1),  # the task instance is gone
])
async def test_on_kill_of_a_moved_trigger_keeps_the_druid_task(druid_conn, monkeypatch, states, map_index, shut):
    """Airflow 3.3 cancels a trigger that was re-assigned to another triggerer (the old one stalled past
    triggerer_health_check_threshold and came back) through the same path as a user's kill, so on_kill runs; the
    Druid task must survive that, since the task is still deferred and the new triggerer watches it."""
    from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance

    asked: list[dict] = []

    def get_task_states(**kw):
        asked.append(kw)
        return states

    monkeypatch.setattr(RuntimeTaskInstance, "get_task_states", staticmethod(get_task_states))
    druid_conn.plan_next_task(TaskPlan(duration=5.0))
    druid_task_id = await asyncio.to_thread(submit)
    trigger = DruidTaskTrigger(druid_task_id=druid_task_id)
    _deferred_ti(trigger, map_index)
    await trigger.on_kill()
    assert len(shutdowns(druid_conn)) == shut
    assert asked == [{"dag_id": "d", "task_ids": ["ingest"], "run_ids": ["r1"], "map_index": map_index}]


async def test_on_kill_shuts_down_when_the_task_state_cannot_be_read(druid_conn, monkeypatch):
    """No answer about the task (no supervisor, an older Airflow): a kill is taken for the user's kill it was
    documented as."""
    from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance

    def broken(**kw):
        raise RuntimeError("no supervisor")

    monkeypatch.setattr(RuntimeTaskInstance, "get_task_states", staticmethod(broken))
    druid_conn.plan_next_task(TaskPlan(duration=5.0))
    druid_task_id = await asyncio.to_thread(submit)
    trigger = DruidTaskTrigger(druid_task_id=druid_task_id)
    _deferred_ti(trigger)
    await trigger.on_kill()
    assert len(shutdowns(druid_conn)) == 1


@pytest.mark.resume_settle
async def test_an_event_ready_at_once_is_held_until_the_scheduler_drained_the_deferral(druid_conn, monkeypatch):
    """Airflow 3.3.2 fails a task whose trigger fired before the scheduler drained the executor's "success" of the
    worker's exit at defer() (RESUME_SETTLE): an outcome ready at once is held that long; a slower one is not."""
    monkeypatch.setattr(DruidTaskTrigger, "resume_settle", 1.5)
    druid_conn.plan_next_task(TaskPlan(duration=0.0))
    druid_task_id = await asyncio.to_thread(submit)
    await asyncio.sleep(0.5)  # the task has ended: the trigger's first look finds it done
    started = time.monotonic()
    event = await first_event(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST))
    held = time.monotonic() - started
    assert event["status"] == "success", event
    assert 1.5 <= held < 5.0, held
    monkeypatch.setattr(DruidTaskTrigger, "resume_settle", 0.0)
    started = time.monotonic()
    assert (await first_event(DruidTaskTrigger(druid_task_id=druid_task_id, **FAST)))["status"] == "success"
    assert time.monotonic() - started < 1.5
