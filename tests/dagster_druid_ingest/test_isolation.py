"""Dagster stays an extra: the plain install does not require it, nothing outside the Dagster face imports it,
and a test run without it fails loudly instead of skipping the face."""

import os
import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_DAGSTER = (
    "import sys\n"
    "import airflow_provider_druid_ingest, druid_ingest.cli\n"
    "import druid_ingest, druid_ingest.clients._sync_client\n"
    "import druid_ingest.clients._async_client, druid_ingest.planning._plan\n"
    "import airflow_provider_druid_ingest.hooks.druid, airflow_provider_druid_ingest.operators.ingest\n"
    "import airflow_provider_druid_ingest.operators.submit, airflow_provider_druid_ingest.sensors.task\n"
    "import airflow_provider_druid_ingest.sensors.handoff, airflow_provider_druid_ingest.triggers.ingestion\n"
    "import airflow_provider_druid_ingest.links, airflow_provider_druid_ingest.get_provider_info\n"
    "import druid_ingest.testing\n"
    "loaded = sorted(m for m in sys.modules if m == 'dagster' or m.startswith(('dagster.', 'dagster_')))\n"
    "assert not loaded, loaded\n"
    "assert 'airflow' in sys.modules  # the probe really imported the Airflow face\n"
)


def test_the_airflow_face_and_the_core_never_import_dagster() -> None:
    out = subprocess.run([sys.executable, "-c", NOT_DAGSTER], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]


def test_the_plain_install_does_not_require_dagster() -> None:
    needs = requires("airflow-provider-druid-ingest") or []
    dagster = [line for line in needs if line.split(";")[0].strip().startswith("dagster")]
    assert dagster and all(re.search(r"extra\s*==\s*['\"]dagster['\"]", line) for line in dagster), needs


def test_the_suite_fails_loudly_when_dagster_is_missing(tmp_path: Path) -> None:
    shim = tmp_path / "dagster"
    shim.mkdir()
    (shim / "__init__.py").write_text("raise ImportError(\"No module named 'dagster' (hidden by this test)\")\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not e2e",
                          "tests/dagster_druid_ingest/test_resource.py"],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode != 0
    assert "tests/dagster_druid_ingest needs dagster" in out.stdout + out.stderr
    assert "skipped" not in out.stdout
