"""Airflow test environment: a throwaway AIRFLOW_HOME with SQLite, set before Airflow is imported.

Only the tests under ``tests/airflow`` load this, so core tests never pay for Airflow. ``airflow db migrate``
runs once per session, and only when a test asks for ``airflow_db`` (the ``dag.test()`` tests).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

_HOME = Path(tempfile.mkdtemp(prefix="druid-ingest-airflow-"))
(_HOME / "dags").mkdir()
os.environ.update(
    {
        "AIRFLOW_HOME": str(_HOME),
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{_HOME / 'airflow.db'}",
        "AIRFLOW__CORE__DAGS_FOLDER": str(_HOME / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",
    }
)
if "airflow" in sys.modules:  # pragma: no cover - a plugin imported Airflow before us
    print("warning: airflow was imported before tests/airflow/conftest.py set AIRFLOW_HOME", file=sys.stderr)

AIRFLOW_BIN = str(Path(sys.executable).with_name("airflow"))
PASSWORD = "s3cr3t-Pa55"
USER = "admin"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def airflow_db() -> Path:
    """Migrate the throwaway metadata DB once (about 3 s)."""
    subprocess.run([AIRFLOW_BIN, "db", "migrate"], check=True, capture_output=True, env=os.environ.copy())
    return _HOME


@pytest.fixture
def fake():
    """A fast FakeDruid with basic auth (the connection below carries the known password)."""
    from druid_ingest.testing import FakeDruid

    with FakeDruid(task_duration=0.3, handoff_delay=0.2, auth={USER: (PASSWORD, "write")}) as druid:
        yield druid


def conn_json(url: str, password: str = PASSWORD, **extra: object) -> str:
    return json.dumps(
        {"conn_type": "druid_cluster", "host": url, "login": USER, "password": password, "extra": extra}
    )


@pytest.fixture
def druid_conn(fake, monkeypatch):
    """``druid_cluster_default`` pointing at the fake, via the env-var secrets backend (no DB)."""
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url))
    return fake


class FakeTI:
    """The slice of RuntimeTaskInstance our operators use: XCom push/pull, recorded."""

    def __init__(self, task_id: str = "t") -> None:
        self.task_id = task_id
        self.xcom: dict[str, object] = {}

    def xcom_push(self, key: str, value: object) -> None:
        self.xcom[key] = value

    def xcom_pull(self, task_ids: str | None = None, key: str = "return_value") -> object:
        return self.xcom.get(key)


@pytest.fixture
def context():
    import pendulum

    start = pendulum.datetime(2026, 7, 16, tz="UTC")
    return {"ti": FakeTI(), "data_interval_start": start, "data_interval_end": start.add(days=1)}


@pytest.fixture
def ctx(context):
    """The test context plus the real accessor Airflow hands a task for its outlet events."""
    from airflow.sdk.execution_time.context import OutletEventAccessors

    return {**context, "outlet_events": OutletEventAccessors()}


@pytest.fixture(autouse=True)
def _no_resume_settle(monkeypatch, request):
    """In-process trigger runs have no scheduler to race (``RESUME_SETTLE``): no hold, unless a test asks for it."""
    if "resume_settle" in request.keywords:
        return
    from airflow_provider_druid_ingest.triggers.base import DruidWaitTrigger

    monkeypatch.setattr(DruidWaitTrigger, "resume_settle", 0.0)
