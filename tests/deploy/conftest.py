"""The deployment e2e suite: the example DAGs run by the real scheduler and triggerer of ``dev/airflow/airflow.sh``
(Postgres, LocalExecutor) against the real Druid. ``scripts/test.sh`` starts both before this suite.

Without a healthy deployment every test here FAILS (never skips): start it with
``DRUID_URL=http://127.0.0.1:8888 bash dev/airflow/airflow.sh start``, or deselect with ``-m 'not deploy'``
(``-m 'not e2e'`` deselects it too).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.deploy.shared_fixtures import HARNESS, Suite, airflow, airflow_api, api, druid, druid_url, expected, key

# pytest looks fixtures up by name in this module: the shared ones (tests/deploy/shared_fixtures.py) are re-exported
# here, for this suite's `suite`; HARNESS for the tests that import it from here
__all__ = ["HARNESS", "airflow", "api", "druid", "druid_url", "expected", "key"]

if TYPE_CHECKING:
    from airflow_rest import AirflowAPI
    from druid_ingest import DruidClient


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/deploy/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.deploy)
            item.add_marker(pytest.mark.e2e)  # it needs the real Druid too: -m "not e2e" deselects it as well
            item.add_marker(pytest.mark.timeout(420))


@pytest.fixture(scope="session")
def deploy_env() -> dict[str, str]:
    """The environment `airflow.sh env` prints, over ours: the `airflow` CLI then talks to the deployment."""
    out = subprocess.run(["bash", "-c", f'eval "$(bash {HARNESS} env)" && env -0'], capture_output=True, check=True)
    env = dict(item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item)
    try:
        health = airflow_api(env).health()
    except Exception as exc:  # connection refused, bad JSON: the deployment is not up
        health = {"error": repr(exc)}
    bad = {k: v for k, v in health.items() if not isinstance(v, dict) or v.get("status") != "healthy"}
    if bad:
        pytest.fail(f"the Airflow deployment at {env['AIRFLOW_DEV_API_URL']} is not up/healthy: {bad}. "
                    "Start it: bash dev/airflow/airflow.sh start (scripts/test.sh does); deselect with -m 'not deploy'",
                    pytrace=False)
    return env


@pytest.fixture(scope="session")
def suite(deploy_env: dict[str, str]) -> Suite:
    """The shared fixtures (``shared_fixtures.py``) talk to the LocalExecutor deployment."""
    return Suite("deploy", deploy_env, cli_timeout=120)


@pytest.fixture(scope="session")
def asset_pipeline(
    api: AirflowAPI, druid: DruidClient, expected: dict[str, dict[str, Any]], key: str
) -> dict[str, Any]:
    """One producer run of example_druid_asset_producer and the consumer run its Asset event queued (run once:
    the Asset test asserts the order, the browser test looks at the same run in the UI)."""
    from .assets_flow import print_timeline, run_asset_pipeline

    result = run_asset_pipeline(api, druid, expected, key)
    print_timeline(result)
    return result


@pytest.fixture(scope="session")
def crash(api, airflow, druid, druid_url, deploy_env, expected, key):
    """The crash points' kit (``tests/deploy/crash_helpers.py``): their test server (Druid relay + input), the
    ``crash_druid`` connection through it with a known password, the crash DAGs parsed and unpaused."""
    import secrets

    from tests.deploy.crash_helpers import CONN_ID, CRASH_DAG, LOGIN, TIMEOUT_DAG, Crash
    from tests.deploy.crash_server import CrashServer

    password = f"Crash-{secrets.token_urlsafe(18)}"
    with CrashServer(Path(deploy_env["AIRFLOW_DEV_EVENTS_DIR"]), druid_url) as server:
        api.put_connection({"connection_id": CONN_ID, "conn_type": "druid_cluster", "host": server.url,
                            "login": LOGIN, "password": password})
        for dag_id in (CRASH_DAG, TIMEOUT_DAG):
            deadline = time.monotonic() + 120
            while True:
                try:
                    api.get(f"/dags/{dag_id}")
                    break
                except Exception as exc:
                    if time.monotonic() > deadline:
                        pytest.fail(f"DAG {dag_id} is not parsed ({exc}): start the deployment with "
                                    "AIRFLOW_DEV_EXTRA_DAGS=<repo>/tests/deploy/dags (scripts/test.sh does)",
                                    pytrace=False)
                    time.sleep(2)
            api.send("PATCH", f"/dags/{dag_id}", {"is_paused": False})  # backfill runs start only when unpaused
        yield Crash(server, api, airflow, druid, druid_url, deploy_env, expected, key, password)
