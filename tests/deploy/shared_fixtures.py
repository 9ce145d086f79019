"""The session fixtures both deployment suites use, written once: ``tests/deploy`` (LocalExecutor) and
``tests/deploy_celery`` (CeleryExecutor) import them into their conftests.

Each conftest says which deployment they talk to with a ``suite`` fixture (:class:`Suite`: a name for the
idempotency key, the environment of ``airflow.sh env``, the ``airflow`` CLI's timeout); the rest is the same
Druid client, key, expected counts, REST client and CLI runner for both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "dev" / "airflow"))

from airflow_rest import AirflowAPI  # noqa: E402
from druid_ingest import ClusterConfig, DruidClient  # noqa: E402

AIRFLOW = str(Path(sys.executable).with_name("airflow"))
HARNESS = ROOT / "dev" / "airflow" / "airflow.sh"

__all__ = ["AIRFLOW", "HARNESS", "ROOT", "Suite", "airflow", "airflow_api", "api", "druid", "druid_url", "expected",
           "key"]


@dataclass(frozen=True)
class Suite:
    """What differs between the two suites' deployments."""

    name: str  # "deploy" or "celery": the idempotency key's prefix, so two suites never share Druid task ids
    env: dict[str, str]  # the running deployment's environment (`airflow.sh env` over ours)
    cli_timeout: float  # seconds one `airflow` CLI call may take


def airflow_api(env: dict[str, str]) -> AirflowAPI:
    """The REST client of the deployment ``env`` describes, as its admin."""
    return AirflowAPI(env["AIRFLOW_DEV_API_URL"], password=env["AIRFLOW_DEV_ADMIN_PASSWORD"])


@pytest.fixture(scope="session")
def druid_url() -> str:
    url = os.environ.get("DRUID_E2E_URL")
    if not url:
        pytest.fail("DRUID_E2E_URL is not set: the real Druid, e.g. http://127.0.0.1:8888 (`bash scripts/test.sh` "
                    "starts it and sets it)", pytrace=False)
    return url


@pytest.fixture(scope="session")
def druid(druid_url: str) -> Iterator[DruidClient]:
    with DruidClient(ClusterConfig(url=druid_url, read_timeout=60)) as client:
        yield client


@pytest.fixture(scope="session")
def key(suite: Suite) -> str:
    """A fresh idempotency key per session: new Druid task ids, so every session really ingests."""
    return f"{suite.name}-e2e-{int(time.time())}"


@pytest.fixture(scope="session")
def expected(suite: Suite) -> dict[str, dict[str, Any]]:
    """The generator's counts per day of the input the deployment reads (29 days from 2026-11-01)."""
    out = subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out",
                          suite.env["AIRFLOW_DEV_EVENTS_DIR"], "--start", "2026-11-01", "--days", "29", "--expect"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.fixture(scope="session")
def api(suite: Suite) -> AirflowAPI:
    return airflow_api(suite.env)


@pytest.fixture(scope="session")
def airflow(suite: Suite) -> Callable[..., str]:
    """Run the real `airflow` CLI against the deployment; fails the test with its output on a non-zero exit."""

    def run(*args: str) -> str:
        proc = subprocess.run([AIRFLOW, *args], env=suite.env, capture_output=True, text=True,
                              timeout=suite.cli_timeout)
        assert proc.returncode == 0, f"airflow {' '.join(args)}:\n{(proc.stdout + proc.stderr)[-3000:]}"
        return proc.stdout

    return run
