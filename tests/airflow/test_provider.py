"""Registration (entry point, CLI, connection form), the hook's connection mapping, import cost."""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import AIRFLOW_BIN

PACKAGE = "airflow-provider-druid-ingest"


def test_cli_lists_the_provider():
    out = subprocess.run(
        [AIRFLOW_BIN, "providers", "get", PACKAGE], capture_output=True, text=True, env=os.environ.copy(), timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert PACKAGE in out.stdout


def test_providers_manager_sees_hook_form_trigger_and_link():
    from airflow.providers_manager import ProvidersManager

    pm = ProvidersManager()
    assert PACKAGE in pm.providers
    hook = pm.hooks["druid_cluster"]
    assert hook.hook_class_name == "airflow_provider_druid_ingest.hooks.druid_sql.DruidSqlHook"
    assert hook.connection_id_attribute_name == "druid_conn_id" and hook.connection_testable
    widgets = {k for k in pm.connection_form_widgets if k.startswith("extra__druid_cluster__")}
    assert {f"extra__druid_cluster__{f}" for f in ("verify", "ca_bundle", "broker_url", "console_url")} <= widgets
    assert pm.field_behaviours["druid_cluster"]["relabeling"]["host"] == "Router / Overlord URL"
    assert "airflow_provider_druid_ingest.links.DruidTaskLink" in pm.extra_links_class_names
    assert any("airflow_provider_druid_ingest.triggers.task" in str(t) for t in pm.trigger)


IMPORT_BASELINE = (
    "import airflow.sdk; from airflow.sdk import DAG, BaseOperator, BaseSensorOperator, BaseHook, "
    "BaseOperatorLink, Asset, conf, task; import airflow.sdk.exceptions"
)


INGEST_IMPORT = "from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator"


def _importtime(code: str) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=os.environ.copy()
    )
    assert out.returncode == 0, out.stderr[-2000:]
    found: dict[str, int] = {}
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, _cumulative, name = line[len("import time:"):].split("|")
            found[name.strip()] = int(self_us)
    return found


def test_dag_file_imports_pull_in_neither_aiohttp_nor_the_fake():
    probe = (
        "import sys; from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator; "
        "from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator; "
        "from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator; "
        "from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor; "
        "from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor; "
        "bad = [m for m in sys.modules if m == 'aiohttp' or m.startswith('druid_ingest.testing')]; "
        "assert not bad, bad"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stderr[-2000:]
    baseline = _importtime(IMPORT_BASELINE)
    ours = _importtime(f"{IMPORT_BASELINE}; {INGEST_IMPORT}")
    added_ms = sum(us for name, us in ours.items() if name not in baseline) / 1000
    print(f"DruidIngestOperator adds {added_ms:.1f} ms of imports over the airflow.sdk baseline")
    assert "aiohttp" not in ours  # the import-time budget is benchmarks/p4_dag_parse.py's goal, not a timed test
