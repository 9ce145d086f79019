"""The op flavour: a partitioned job submit op -> wait op, against the fake Druid over real sockets."""

import threading

import dagster as dg
import pytest
from dagster_druid_ingest import WaitOptions, druid_daily_job
from druid_ingest.testing import FakeDruid, TaskPlan

from tests.dagster_druid_ingest.conftest import DAY, DAY_INTERVAL, LOCATION, fast_resource
from tests.druid_ingest.gate_looks import assert_learned, assert_on_core_looks, gate_looks, looks_fake, plant

pytestmark = pytest.mark.timeout(60)


def run(job: dg.JobDefinition, druid, partition: str = DAY) -> dg.ExecuteInProcessResult:
    return job.execute_in_process(partition_key=partition, resources={"druid": druid}, raise_on_error=False)


def test_submit_outputs_the_task_id_and_wait_consumes_it_until_queryable(fake_druid: FakeDruid, druid, spec) -> None:
    job = druid_daily_job("dg_ops", spec(), start_date="2026-11-01", datasource="dg_ops", input_locations=[LOCATION])
    fake_druid.pause_loading()
    fake_druid.plan_next_task(TaskPlan(duration=0.2))
    box: dict[str, dg.ExecuteInProcessResult] = {}
    thread = threading.Thread(target=lambda: box.update(result=run(job, druid)))
    thread.start()
    thread.join(3)
    assert thread.is_alive()  # the wait op holds the job until the segments are served
    fake_druid.resume_loading()
    thread.join(30)
    result = box["result"]
    assert result.success
    task_id = result.output_for_node("dg_ops_submit")
    assert result.output_for_node("dg_ops_wait") == task_id
    (posted,) = [r for r in fake_druid.submit_requests()
                 if r.path == "/druid/indexer/v1/task"]
    assert posted.json["id"] == task_id
    assert posted.json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [DAY_INTERVAL]
    waited = {e.event_specific_data.metadata["druid/handoff_state"].value for e in result.all_events
              if e.event_type_value == "STEP_OUTPUT" and e.step_key == "dg_ops_wait"}
    assert waited == {"loaded"}
    assert result.dagster_run.tags["dagster/partition"] == DAY


def test_a_failed_task_fails_the_wait_op_without_retries_and_a_rerun_submits_r1(fake_druid: FakeDruid, druid,
                                                                              spec) -> None:
    fake_druid.plan_next_task(TaskPlan(outcome="FAILED", error_msg="Max parse exceptions[0] exceeded", unparseable=2))
    job = druid_daily_job("dg_ops_failed", spec(tuning={"maxSavedParseExceptions": 2}), start_date="2026-11-01",
                          datasource="dg_ops_failed", input_locations=[LOCATION])
    result = run(job, druid)
    assert not result.success
    (failure,) = [e.step_failure_data.user_failure_data for e in result.all_events
                  if e.is_step_failure and e.step_key == "dg_ops_failed_wait"]
    assert "Max parse exceptions[0] exceeded" in failure.description
    assert "unparseable events (first 2 of 2)" in failure.description
    assert "re-run the submit step" in failure.description
    again = run(job, druid)
    assert again.success
    assert again.output_for_node("dg_ops_failed_submit").endswith("_r1")


def test_the_wait_op_times_out_and_shuts_the_task_down(fake_druid: FakeDruid, druid, spec) -> None:
    fake_druid.plan_next_task(TaskPlan(duration=30))
    job = druid_daily_job("dg_ops_slow", spec(), start_date="2026-11-01", datasource="dg_ops_slow",
                          input_locations=[LOCATION], options=WaitOptions(task_timeout=0.5))
    result = run(job, druid)
    assert not result.success
    task_id = result.output_for_node("dg_ops_slow_submit")
    assert fake_druid.requests_matching("POST", f"/druid/indexer/v1/task/{task_id}/shutdown")
    assert fake_druid.task(task_id).state == "FAILED"


def test_the_wait_op_looks_on_the_cores_handoff_looks_and_learns(monkeypatch, spec) -> None:
    """The wait op's handoff wait is the core's: its first look at the planned time after the task's end (not at
    once), a step apart through the learned window, and the delay it saw kept for the next run."""
    with looks_fake() as fake:
        druid = fast_resource(fake.url, poll_interval=1.0, max_poll_interval=5.0)
        with druid.get_client() as client:
            cluster = client.wait_memory.cluster
        memory = plant(monkeypatch, cluster, "dg_looks")
        job = druid_daily_job("dg_looks", spec(), start_date="2026-11-01", datasource="dg_looks",
                              input_locations=[LOCATION])
        result = run(job, druid)
        assert result.success
        with druid.get_client() as client:
            target = client.handoff_target(result.output_for_node("dg_looks_submit"), "dg_looks", [DAY_INTERVAL])
        assert target.ended_at is not None
        assert_on_core_looks(gate_looks(fake, "dg_looks"), target.ended_at)
    assert_learned(memory, cluster, "dg_looks")
