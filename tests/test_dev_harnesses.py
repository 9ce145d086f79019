"""The three dev harnesses (dev/druid, dev/airflow, dev/nginx) share dev/lib.sh and answer the same verbs, so a
user who knows one knows the others: start, stop, status, logs, url, env. `url` and `env` answer without any
service running (they are how scripts and tests find a harness)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESSES = {"druid": ROOT / "dev/druid/druid.sh", "airflow": ROOT / "dev/airflow/airflow.sh",
             "nginx": ROOT / "dev/nginx/nginx.sh"}
VERBS = ("start", "stop", "status", "logs", "url", "env")


def _run(script: Path, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(tmp_path),
           "AIRFLOW_DEV_VAR_DIR": str(tmp_path / "airflow"), "NGINX_DEV_VAR_DIR": str(tmp_path / "nginx"),
           "DRUID_VAR_DIR": str(tmp_path / "druid")}
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_each_harness_sources_the_shared_library_and_defines_no_copy_of_it(name: str) -> None:
    text = HARNESSES[name].read_text()
    assert 'source "$' in text and "/../lib.sh" in text
    for fn in ("log", "die", "port_open", "pid_file"):
        assert not re.search(rf"^{fn}\(\) \{{", text, re.M), f"{name} defines its own {fn}()"


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_each_harness_documents_and_answers_the_same_verbs(name: str, tmp_path: Path) -> None:
    usage = _run(HARNESSES[name], "help", tmp_path=tmp_path)
    for verb in VERBS:
        assert re.search(rf"\.sh {verb}\b", usage.stdout + usage.stderr), (name, verb, usage.stdout)
    bad = _run(HARNESSES[name], "no-such-verb", tmp_path=tmp_path)
    assert bad.returncode == 2


def test_url_and_env_answer_without_a_running_service(tmp_path: Path) -> None:
    druid = _run(HARNESSES["druid"], "env", tmp_path=tmp_path)
    assert druid.returncode == 0 and druid.stdout.strip() == "DRUID_URL=http://127.0.0.1:8888"
    assert _run(HARNESSES["druid"], "url", tmp_path=tmp_path).stdout.strip() == "http://127.0.0.1:8888"
    assert _run(HARNESSES["nginx"], "url", tmp_path=tmp_path).stdout.strip() == "https://127.0.0.1:28443"
    nginx_env = _run(HARNESSES["nginx"], "env", tmp_path=tmp_path)  # nothing made yet: says what to run
    assert nginx_env.returncode == 1 and "nginx.sh start" in nginx_env.stderr
    assert nginx_env.stderr.startswith("[nginx.sh] ERROR: ")  # the shared die(), with the harness's name
