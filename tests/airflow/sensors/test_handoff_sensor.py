"""DruidHandoffSensor: the gate from the task's own intervals, a wrong datasource, never/pass, deferral."""

from __future__ import annotations

import pytest
from airflow.sdk.exceptions import AirflowFailException, AirflowSensorTimeout, TaskDeferred

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor
from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
from tests.druid_ingest.gate_looks import assert_learned, assert_on_core_looks, gate_looks, looks_fake, plant

from ..conftest import PASSWORD, USER, FakeTI, conn_json
from ..helpers import DAY, FAST, run_trigger, spec


def _succeeded(context) -> str:
    druid_task_id = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1).execute(context)
    return druid_task_id


def test_poke_mode_passes_once_served(druid_conn, context):
    druid_task_id = _succeeded(context)
    gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1)
    assert gate.execute(context) == druid_task_id


def test_handoff_sensor_without_data_interval_uses_the_task_intervals(druid_conn, context):
    druid_task_id = DruidIngestOperator(task_id="i", spec=spec(), deferrable=False, wait_for_handoff=False,
                                        **FAST).execute(context)
    gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1)
    assert gate.execute({"ti": FakeTI()}) == druid_task_id
    assert gate._target is not None and list(gate._target.intervals) == [DAY]


def test_handoff_sensor_refuses_a_datasource_the_task_never_wrote(druid_conn, context):
    druid_task_id = _succeeded(context)
    sensor = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, datasource="other", deferrable=False)
    with pytest.raises(AirflowFailException, match="'wiki', not 'other'"):
        sensor.poke(context)


def test_deferred_wait_and_never_rules(druid_conn, context):
    druid_task_id = _succeeded(context)
    druid_conn.pause_loading()
    # a budget the wait cannot reach on a loaded machine: only the trigger's event decides (a synthetic timeout
    # event is checked below); 10 s failed once in a -n 3 run beside a Celery deployment on 2 cores
    gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, timeout=120, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        gate.execute(context)
    assert isinstance(deferred.value.trigger, DruidHandoffTrigger)
    druid_conn.resume_loading()
    assert gate.execute_complete(context, run_trigger(deferred.value.trigger)) == druid_task_id
    never = {"status": "never", "druid_task_id": druid_task_id, "message": "wiki: never: zero replicas",
             "result": {"state": "never", "never": ["seg1"]}}
    with pytest.raises(AirflowFailException, match="will never load"):
        gate.execute_complete(context, never)
    passing = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, on_never="pass")
    assert passing.execute_complete(context, never) == druid_task_id
    with pytest.raises(AirflowSensorTimeout):
        gate.execute_complete(context, {"status": "timeout", "druid_task_id": druid_task_id, "message": "slow"})
    with pytest.raises(ValueError, match="on_never"):
        DruidHandoffSensor(task_id="h", druid_task_id="x", on_never="maybe")


def test_the_deferred_sensor_hands_the_tasks_end_to_the_trigger_which_looks_on_the_cores_looks(monkeypatch,
                                                                                               context):
    """The sensor's one look at once (its poke), then the trigger's looks placed from the task's end: the target
    it defers with carries that end, so a trigger rebuilt after a restart places them the same."""
    with looks_fake(auth={USER: (PASSWORD, "write")}) as fake:
        monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url))
        with DruidHook().get_client() as client:
            cluster = client.wait_memory.cluster
        memory = plant(monkeypatch, cluster, "wiki")
        druid_task_id = _succeeded(context)
        gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, timeout=30, poll_interval=1.0,
                                  max_poll_interval=5.0)
        with pytest.raises(TaskDeferred) as deferred:
            gate.execute(context)
        (poked,) = gate_looks(fake, "wiki")
        target = gate._target
        assert target is not None and target.ended_at is not None
        trigger = deferred.value.trigger
        assert trigger.target["ended_at"] == target.ended_at
        assert gate.execute_complete(context, run_trigger(trigger), target=target.to_dict()) == druid_task_id
    assert_on_core_looks(gate_looks(fake, "wiki", after=poked + 1e-3), target.ended_at)
    assert_learned(memory, cluster, "wiki")
