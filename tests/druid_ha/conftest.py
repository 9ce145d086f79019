"""Fixtures of the failover suite: the ha cluster's URL and state dir, and one service at a time up or down."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def http(url: str, body: Any = None, timeout: float = 10) -> tuple[int, str]:
    """One raw request (what Druid shows, recorded next to the gate's verdict); (0, why) when unreachable."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except OSError as e:
        return 0, str(e)


def druid_sh(*args: str) -> None:
    """``DRUID_CLUSTER=ha bash dev/druid/druid.sh ARGS`` (e.g. ``stop historical2``)."""
    env = {**os.environ, "DRUID_CLUSTER": "ha"}
    done = subprocess.run(["bash", str(ROOT / "dev/druid/druid.sh"), *args], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])


@pytest.fixture(scope="session")
def ha_url() -> str:
    url = os.environ.get("DRUID_HA_URL")
    if not url:
        pytest.fail("DRUID_HA_URL is not set: start DRUID_CLUSTER=ha bash dev/druid/druid.sh start and export "
                    "DRUID_HA_URL=http://127.0.0.1:18888", pytrace=False)
    return url


@pytest.fixture(scope="session")
def ha_var_dir() -> Path:
    return Path(os.environ.get("DRUID_HA_VAR_DIR", ROOT / "dev/druid/var-ha"))
