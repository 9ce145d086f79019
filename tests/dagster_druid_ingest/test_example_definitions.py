"""``examples/dagster/definitions.py``: Dagster's own validator accepts it, and its daily job runs the asset and
its gate for a partition against the fake Druid."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from druid_ingest.testing import FakeDruid

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples/dagster/definitions.py"
DAGSTER = str(Path(sys.executable).with_name("dagster"))


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dagster_definitions_validate_passes(tmp_path: Path) -> None:
    (tmp_path / "dagster.yaml").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRUID_")}  # no cluster needed to validate
    out = subprocess.run([DAGSTER, "definitions", "validate", "-f", str(EXAMPLE)], capture_output=True, text=True,
                         env={**env, "DAGSTER_HOME": str(tmp_path)}, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "All code locations passed validation" in out.stdout + out.stderr


def test_the_daily_job_materializes_a_partition_and_runs_its_gate(fake_druid: FakeDruid,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRUID_URL", fake_druid.url)
    monkeypatch.setenv("DRUID_USER", "admin")
    monkeypatch.setenv("DRUID_PASSWORD", "pw")
    monkeypatch.setenv("DRUID_EVENTS_DATASOURCE", "dg_example")
    monkeypatch.setenv("DRUID_EVENTS_ROOT", "/srv/events")
    example = load_example("dg_example_definitions")
    defs = example.defs
    job = defs.resolve_job_def("dg_example_daily")
    assert {s.name for s in defs.schedules} == {"dg_example_daily_schedule"}
    result = job.execute_in_process(partition_key="2026-11-04", raise_on_error=False,
                                    run_config={"execution": {"config": {"in_process": {}}}})
    assert result.success
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.check_name == "segments_queryable" and check.partition == "2026-11-04"
    (posted,) = [r for r in fake_druid.submit_requests()
                 if r.path == "/druid/indexer/v1/task"]
    assert posted.json["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/srv/events/2026-11-04"
    assert posted.json["spec"]["dataSchema"]["dataSource"] == "dg_example"
    ops_job = defs.resolve_job_def("dg_example_ops")
    again = ops_job.execute_in_process(partition_key="2026-11-04", raise_on_error=False)
    assert again.success and again.output_for_node("dg_example_ops_submit") == posted.json["id"]  # adopted
    assert len([r for r in fake_druid.submit_requests()
                if r.path == "/druid/indexer/v1/task"]) == 1
