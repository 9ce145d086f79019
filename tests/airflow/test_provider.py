"""Registration (entry point, CLI, connection form), the hook's connection mapping, import cost."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from airflow.sdk import Connection

from airflow_provider_druid_ingest.hooks.druid import DruidHook, config_from_connection

from .conftest import AIRFLOW_BIN, PASSWORD, conn_json

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
    assert hook.hook_class_name == "airflow_provider_druid_ingest.hooks.druid.DruidHook"
    assert hook.connection_id_attribute_name == "druid_conn_id" and hook.connection_testable
    widgets = {k for k in pm.connection_form_widgets if k.startswith("extra__druid_cluster__")}
    assert {f"extra__druid_cluster__{f}" for f in ("verify", "ca_bundle", "broker_url", "console_url")} <= widgets
    assert pm.field_behaviours["druid_cluster"]["relabeling"]["host"] == "Router / Overlord URL"
    assert "airflow_provider_druid_ingest.links.DruidTaskLink" in pm.extra_links_class_names
    assert any("airflow_provider_druid_ingest.triggers.task" in str(t) for t in pm.trigger)


def test_connection_passes_against_the_fake_and_fails_clearly_on_a_closed_port(druid_conn, monkeypatch):
    ok, message = DruidHook().test_connection()
    assert ok, message
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(f"http://127.0.0.1:{port}"))
    ok, message = DruidHook().test_connection()
    assert not ok
    assert "connection failed" in message and f"127.0.0.1:{port}" in message
    assert PASSWORD not in message


def test_wrong_password_fails_test_connection_without_echoing_it(fake, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url, password="nope-nope"))
    ok, message = DruidHook().test_connection()
    assert not ok and "401" in message and "nope-nope" not in message


@pytest.mark.parametrize(
    ("fields", "extra", "url"),
    [
        ({"host": "router.example.com", "port": 8888}, {}, "http://router.example.com:8888"),
        ({"host": "router.example.com", "port": 9088}, {}, "https://router.example.com:9088"),
        ({"host": "router.example.com", "port": 443}, {}, "https://router.example.com:443"),
        ({"host": "router.example.com", "schema": "https"}, {}, "https://router.example.com"),
        ({"host": "router.example.com", "port": 8888}, {"use_https": "true"}, "https://router.example.com:8888"),
        ({"host": "http://router:8888/", "port": 9999}, {}, "http://router:8888"),
        ({"host": "https://router", "port": 8443}, {}, "https://router:8443"),
    ],
)
def test_connection_to_cluster_config(fields, extra, url):
    conn = Connection(conn_id="x", conn_type="druid_cluster", login="u", password=PASSWORD, **fields)
    config = config_from_connection(conn, extra)
    assert config.url == url
    assert config.auth == ("u", PASSWORD)
    assert PASSWORD not in repr(config)


def test_extras_map_to_config():
    conn = Connection(conn_id="x", conn_type="druid_cluster", host="http://router:8888")
    config = config_from_connection(
        conn,
        {
            "coordinator_url": "http://coord:8081",
            "broker_url": "http://broker:8082",
            "console_url": "https://console.example.com",
            "verify": "false",
            "ca_bundle": "/etc/ca.pem",
            "connect_timeout": "3",
            "read_timeout": 30,
            "trusted_hosts": "overlord-2:8090, overlord-3:8090",
        },
    )
    assert config.coordinator_url == "http://coord:8081" and config.broker_url == "http://broker:8082"
    assert config.verify is False and config.ca_bundle == "/etc/ca.pem"
    assert (config.connect_timeout, config.read_timeout) == (3.0, 30.0)
    assert config.trusted_hosts == ("overlord-2:8090", "overlord-3:8090")
    assert config.console_task_url("t1").startswith("https://console.example.com/unified-console.html#tasks")


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
        "from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor; "
        "from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor; "
        "bad = [m for m in sys.modules if m == 'aiohttp' or m.startswith('airflow_provider_druid_ingest.testing')]; "
        "assert not bad, bad"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stderr[-2000:]
    baseline = _importtime(IMPORT_BASELINE)
    ours = _importtime(f"{IMPORT_BASELINE}; {INGEST_IMPORT}")
    added_ms = sum(us for name, us in ours.items() if name not in baseline) / 1000
    print(f"DruidIngestOperator adds {added_ms:.1f} ms of imports over the airflow.sdk baseline")
    assert "aiohttp" not in ours
    assert added_ms < 150
