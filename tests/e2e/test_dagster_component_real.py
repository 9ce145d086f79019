"""The example dg project's ``DruidIngestComponent`` (defs.yaml), materialized by the real ``dagster`` CLI against
the real Druid: two daily partitions, each queryable with the generator's counts the moment its run ends."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.wire._config import ClusterConfig

from tests.e2e.test_dagster_real import check_passed, day_counts

pytestmark = pytest.mark.timeout(1200)
ROOT = Path(__file__).resolve().parents[2]
DAGSTER = str(Path(sys.executable).with_name("dagster"))
SRC = ROOT / "examples/dagster/druid_project/src"
DATASOURCE = "dgcomp_e2e_events"  # our own: the cluster is shared
DAYS = ("2026-11-02", "2026-11-03")
PASSWORD = "component-Pa55-never-printed"


def test_two_partitions_of_the_component_are_queryable(tmp_path: Path, druid_url: str, events_dir: Path,
                                                       expected, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "dagster.yaml").write_text("")
    packages = ROOT / "packages"
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path), "DRUID_URL": druid_url, "DRUID_USER": "admin",
           "DRUID_PASSWORD": PASSWORD, "DRUID_EVENTS_DATASOURCE": DATASOURCE, "DRUID_EVENTS_ROOT": str(events_dir),
           "PYTHONPATH": os.pathsep.join(str(p) for p in (ROOT, packages / "druid-ingest",
                                                           packages / "dagster-druid-ingest"))}
    config = json.dumps({"ops": {DATASOURCE: {"config": {"idempotency_key": f"e2e-{int(time.time())}"}}}})
    monkeypatch.setattr("tests.e2e.test_dagster_real.DATASOURCE", DATASOURCE)  # day_counts/check_passed read it
    with DruidClient(ClusterConfig(url=druid_url, read_timeout=120)) as client:
        for day in DAYS:
            started = time.monotonic()
            proc = subprocess.run([DAGSTER, "asset", "materialize", "-m", "druid_project.definitions", "-d",
                                   str(SRC), "--select", DATASOURCE, "--partition", day, "--config-json", config],
                                  env=env, capture_output=True, text=True, timeout=900)
            out = proc.stdout + proc.stderr
            assert proc.returncode == 0, out[-4000:]
            assert PASSWORD not in out
            assert re.search(r"Submitted Druid task (\S+) \(attempt 0\)", out), out[-4000:]
            check_passed(env, out)
            assert day_counts(client, day) == expected[day]  # green means queryable, no waiting
            print(f"{day}: component materialized in {time.monotonic() - started:.1f}s")
