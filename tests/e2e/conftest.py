"""The real-Druid suite. ``scripts/test.sh`` (and so ``.ci/run``) starts dev/druid and exports DRUID_E2E_URL.

Without it these tests FAIL (never skip silently): run them through ``bash scripts/test.sh``, or deselect
them explicitly with ``-m "not e2e"``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/") and item.fspath.basename != "test_compose_static.py":
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def druid_url() -> str:
    url = os.environ.get("DRUID_E2E_URL")
    if not url:
        pytest.fail(
            "DRUID_E2E_URL is not set: the e2e suite needs the real Druid that `bash scripts/test.sh` starts "
            "(dev/druid/druid.sh). Deselect with -m 'not e2e' to run without it.",
            pytrace=False,
        )
    return url


@pytest.fixture(scope="session")
def events_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("events")
    subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(out)], check=True,
                   capture_output=True)
    return out


@pytest.fixture(scope="session")
def expected(events_dir: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(events_dir), "--expect"],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


@pytest.fixture()
def real(druid_url: str) -> Iterator[DruidClient]:
    retry = RetryPolicy(max_attempts=8, initial_delay=0.5, max_delay=5, deadline=120)
    with DruidClient(ClusterConfig(url=druid_url, read_timeout=120), retry) as client:
        yield client


@pytest.fixture(scope="session")
def spec_template() -> dict[str, Any]:
    return json.loads((ROOT / "dags/specs/events_web.json").read_text())
