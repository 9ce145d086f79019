"""The concurrency pool: sized from Druid's slots with the k+1 rule, set on the instance, enforced by Dagster."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dagster_druid_ingest import (
    cluster_pool_limit,
    concurrency_set_command,
    druid_daily_asset,
    druid_daily_job,
    pool_limit,
)
from druid_ingest.testing import FakeDruid, TaskPlan

from tests.dagster_druid_ingest.conftest import LOCATION, fast_resource

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EVENTS_SPEC = str(ROOT / "dags/specs/events_web.json")  # maxNumConcurrentSubTasks=2: 3 slots at peak
IN_PROCESS = '{"execution": {"config": {"in_process": {}}}}'  # pools hold for it too; no step subprocesses


def test_pool_limit_is_ingestions_that_fit_for_the_widest_spec() -> None:
    assert pool_limit(4, [3]) == 1  # the dev cluster and the events spec: one at a time
    assert pool_limit(8, [3, 1], headroom=1) == 2  # (8 - 1) // 3
    assert pool_limit(40, [5]) == 8
    assert pool_limit(2, [3]) == 0  # not even one fits: no pool size can help
    assert concurrency_set_command("druid_ingest", 2) == ["dagster", "instance", "concurrency", "set",
                                                          "druid_ingest", "2"]


def test_ingesting_steps_carry_the_pool_and_the_gate_does_not(spec) -> None:
    events = druid_daily_asset(spec(k=2), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_p")
    assert events.asset.op.pool == "druid_ingest" and events.check.node_def.pool is None
    assert events.plan.peak_slots == 3 and events.asset.metadata_by_key[events.asset.key]["druid/peak_slots"] == 3
    job = druid_daily_job("dg_p_ops", spec(), start_date="2026-11-01", input_locations=[LOCATION], pool="custom")
    assert {node.definition.pool for node in job.nodes} == {"custom"}


def test_cluster_pool_limit_reads_the_workers(fake_druid_factory, spec) -> None:
    fake = fake_druid_factory(worker_capacity=8)
    events = druid_daily_asset(spec(k=2), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_w")
    assert cluster_pool_limit(fast_resource(fake.url), [events.plan]) == 2
    assert cluster_pool_limit(fast_resource(fake.url), [events.plan], headroom=3) == 1


@pytest.mark.timeout(240)
def test_the_sized_pool_is_applied_and_keeps_ingestions_one_at_a_time(fake_druid: FakeDruid, tmp_path: Path) -> None:
    """``druid-ingest pool --for dagster --apply`` sizes the pool from the fake's 4 slots (the events spec needs 3:
    N=1) into a real sqlite instance; two partitions launched at once then never overlap in Druid."""
    (tmp_path / "dagster.yaml").write_text("")
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path), "DRUID_URL": fake_druid.url, "DRUID_USER": "admin",
           "DRUID_PASSWORD": "pw", "DRUID_EVENTS_DATASOURCE": "dg_pool", "DRUID_EVENTS_ROOT": "/data/events"}
    sized = subprocess.run([str(BIN / "druid-ingest"), "pool", "--url", fake_druid.url, "--spec", EVENTS_SPEC,
                            "--for", "dagster", "--apply"], env=env, capture_output=True, text=True, timeout=120)
    assert sized.returncode == 0, sized.stdout + sized.stderr
    assert "dagster instance concurrency set druid_ingest 1" in sized.stdout and "applied" in sized.stdout
    assert "warning: $DAGSTER_HOME/dagster.yaml names no postgres or mysql storage" in sized.stdout
    fake_druid.default_plan = TaskPlan(duration=10)  # outlasts the second run's start-up
    command = [str(BIN / "dagster"), "asset", "materialize", "-f", str(ROOT / "examples/dagster/definitions.py"),
               "--select", "dg_pool", "--config-json", IN_PROCESS, "--partition"]
    # The second run starts once the first has its slot: Dagster's SQLite storage can grant one slot to two steps
    # claiming in the same instant (its read-then-write claim; the CLI warns about it, checked above), which is
    # Dagster's race, not the pool's size. The test asks whether the sized pool holds the second back.
    runs = [subprocess.Popen([*command, "2026-11-02"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)]
    deadline = time.monotonic() + 120
    while not fake_druid.submit_requests() and runs[0].poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    runs.append(subprocess.Popen([*command, "2026-11-03"], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True))
    outputs = [run.communicate(timeout=200)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs[0][-2000:] + outputs[1][-2000:]
    posts = sorted((r.time, r.json["id"]) for r in fake_druid.submit_requests()
                   if r.path == "/druid/indexer/v1/task")
    assert len(posts) == 2
    (_, first), (second_posted, _) = posts
    assert second_posted >= fake_druid.task(first).finished_at  # the second waited for the first to end
    assert any("blocked by limit for pool druid_ingest" in out for out in outputs)
