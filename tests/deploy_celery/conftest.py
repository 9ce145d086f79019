"""The Celery suite: its own CeleryExecutor deployment of ``dev/airflow/airflow.sh`` (Redis, two workers, two
triggerers; ports of its own, beside the LocalExecutor suite's) against the real Druid at ``DRUID_E2E_URL``.

The session starts it (``start`` is idempotent: an already running one of the same var dir is reused) and stops
it at the end unless ``CELERY_DEPLOY_KEEP=1``. Ports and var dir are its own, never the inherited ``AIRFLOW_DEV_*``
(scripts/test.sh exports those of the LocalExecutor suite): var/airflow-celery, Postgres 25440, API 28090, log
servers 28891..28894, Redis 26390; ``DEPLOY_CELERY_VAR_DIR`` / ``_PG_PORT`` / ``_API_PORT`` / ``_LOG_PORT`` /
``_REDIS_PORT`` override them (scripts/test.sh stops it with the same values). Deselect with ``-m 'not celery'``.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.shared_fixtures import HARNESS, ROOT, Suite, airflow, api, druid, druid_url, expected, key

# pytest looks fixtures up by name in this module: the shared ones (tests/deploy/shared_fixtures.py) are re-exported
# here, for this suite's `suite`
__all__ = ["airflow", "api", "druid", "druid_url", "expected", "key"]

DEFAULTS = {"VAR_DIR": str(ROOT / "var" / "airflow-celery"), "PG_PORT": "25440", "API_PORT": "28090",
            "LOG_PORT": "28890", "REDIS_PORT": "26390"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/deploy_celery/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.celery)
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.timeout(900))


@pytest.fixture(scope="session")
def harness_env(druid_url: str) -> dict[str, str]:
    """What every harness call of this suite runs with: the celery knob, our ports, the test DAG bundle, short
    triggerer heartbeats (airflow.sh: job_heartbeat_sec 2, health threshold 10) and 5 triggers claimed per loop
    (Airflow's default 50 would let one triggerer claim all 50 waits in one loop: no spread to test)."""
    env = {**os.environ, **{f"AIRFLOW_DEV_{k}": os.environ.get(f"DEPLOY_CELERY_{k}", v) for k, v in DEFAULTS.items()}}
    env.update(AIRFLOW_DEV_EXECUTOR="celery", AIRFLOW_DEV_EXTRA_DAGS=str(Path(__file__).parent / "dags"),
               AIRFLOW_DEV_REPARSE_SEC="600", AIRFLOW_DEV_WORKER_CONCURRENCY="4", DRUID_URL=druid_url,
               AIRFLOW__TRIGGERER__MAX_TRIGGER_TO_SELECT_PER_LOOP="5",
               AIRFLOW_DEV_START_TIMEOUT=os.environ.get("AIRFLOW_DEV_START_TIMEOUT", "420"))
    return env


@pytest.fixture(scope="session")
def harness(harness_env: dict[str, str]):
    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(["bash", str(HARNESS), *args], env=harness_env, capture_output=True, text=True,
                              timeout=900)
        assert not check or proc.returncode == 0, f"airflow.sh {' '.join(args)}:\n{(proc.stdout + proc.stderr)[-3000:]}"
        return proc

    return run


@pytest.fixture(scope="session")
def celery_env(harness) -> Iterator[dict[str, str]]:
    """The running Celery deployment's environment (`airflow.sh env` over ours); its start time is printed."""
    t0 = time.monotonic()
    started = harness("start")
    print(f"\n[celery] airflow.sh start: {time.monotonic() - t0:.0f}s\n{started.stderr[-1500:]}")
    print(harness("status", check=False).stdout)
    text = harness("env").stdout
    env = dict(os.environ)
    for line in text.splitlines():
        if line.startswith("export ") and "=" in line:
            k, v = line[len("export "):].split("=", 1)
            env[k] = v[1:-1] if v[:1] == "'" and v[-1:] == "'" else v
    yield env
    print("\n[celery] at the end:\n" + harness("status", check=False).stdout)
    if os.environ.get("CELERY_DEPLOY_KEEP") != "1":
        t1 = time.monotonic()
        stopped = harness("stop")
        print(f"[celery] airflow.sh stop: {time.monotonic() - t1:.0f}s\n{stopped.stderr[-1500:]}")


@pytest.fixture(scope="session")
def suite(celery_env: dict[str, str]) -> Suite:
    """The shared fixtures (``tests/deploy/shared_fixtures.py``) talk to the Celery deployment."""
    return Suite("celery", celery_env, cli_timeout=180)


@pytest.fixture(scope="session")
def db(celery_env: dict[str, str]):
    """One SQL query on the deployment's metadata DB (rows as tuples): trigger ownership lives only there."""
    import psycopg2

    dsn = celery_env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"].replace("postgresql+psycopg2://", "postgresql://")
    conn = psycopg2.connect(dsn)
    conn.autocommit = True

    def query(sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with conn.cursor() as cur:
            cur.execute(sql, params)
            return list(cur.fetchall())

    yield query
    conn.close()
