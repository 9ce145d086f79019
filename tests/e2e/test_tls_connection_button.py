"""The connection's "Test" button (``DruidHook.test_connection``) against the real nginx + Druid: what a user
reads for a good login, a read-only login, a bad certificate, a wrong password, a cross-host redirect, a wrong
port and plain HTTP sent to the TLS port. Runs in one fresh Airflow process (connections from env variables,
as a deployment's secrets backend would hand them over), so the e2e process never imports Airflow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.net import free_port

from . import nginx_harness

pytestmark = pytest.mark.timeout(300)

_PROBE = """
import json, sys
from airflow_provider_druid_ingest.hooks.druid import DruidHook
print(json.dumps({name: DruidHook(name).test_connection() for name in sys.argv[1:]}))
"""


def conn(host: str, user: tuple[str, str] | None, **extra: Any) -> str:
    body: dict[str, Any] = {"conn_type": "druid_cluster", "host": host, "extra": extra}
    if user:
        body.update(login=user[0], password=user[1])
    return json.dumps(body)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bool, str]]:
    nginx = nginx_harness.load()
    ca = {"ca_bundle": nginx.ca_bundle}
    port = free_port()
    conns = {
        "tls_ok": conn(nginx.tls_url, nginx.admin, **ca),
        "tls_reader": conn(nginx.tls_url, nginx.reader, **ca),
        "tls_bad_cert": conn(nginx.tls_url, nginx.admin),
        "tls_wrong_password": conn(nginx.tls_url, (nginx.admin[0], "wrong-" + nginx.admin[1]), **ca),
        "tls_redirect": conn(nginx.redirect_url, nginx.admin, **ca),
        "tls_wrong_port": conn(f"https://127.0.0.1:{port}", nginx.admin, **ca),
        "tls_plain_http": conn(nginx.tls_url.replace("https://", "http://"), nginx.admin),
        # auth=bearer: the token in Password (Login ignored), against the token server
        "token_ok": conn(nginx.token_url, ("ignored", nginx.token), auth="bearer", **ca),
        "token_wrong": conn(nginx.token_url, ("ignored", "not-" + nginx.token), auth="bearer", **ca),
        "mtls_ok": conn(nginx.mtls_url, None, client_cert=nginx.client_cert, client_key=nginx.client_key, **ca),
        "mtls_none": conn(nginx.mtls_url, None, **ca),
        "proxy_http": conn(nginx.upstream_url, None, proxy=nginx.proxy_url),
    }
    home = tmp_path_factory.mktemp("airflow-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env.update({f"AIRFLOW_CONN_{name.upper()}": value for name, value in conns.items()})
    env.update(AIRFLOW_HOME=str(home), AIRFLOW__CORE__LOAD_EXAMPLES="False")
    proc = subprocess.run([sys.executable, "-c", _PROBE, *conns], env=env, capture_output=True, text=True,
                          timeout=240)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    written = [f.read_text(errors="replace") for f in Path(home).rglob("*") if f.is_file()]
    for secret in (nginx.admin[1], nginx.reader[1], nginx.token):
        assert secret not in out and not any(secret in text for text in written)
    found = {name: (bool(ok), str(msg)) for name, (ok, msg) in json.loads(proc.stdout.splitlines()[-1]).items()}
    print("\n".join(f"{name}: {'PASS' if ok else 'FAIL'}: {msg}" for name, (ok, msg) in found.items()))
    found["_port"] = (True, str(port))
    found["_tls"] = (True, nginx.tls_url)
    found["_token"] = (True, nginx.token_url)
    found["_mtls"] = (True, nginx.mtls_url)
    return found


def test_a_good_login_passes(results):
    ok, message = results["tls_ok"]
    assert ok, message
    assert message.startswith(f"Connected to Druid at {results['_tls'][1]}: healthy, Overlord leader, ")
    assert "task slots free" in message and "STATE WRITE" not in message


def test_a_read_only_login_passes_with_the_403_explained(results):
    ok, message = results["tls_reader"]
    assert ok, message
    assert "no STATE WRITE (Druid answered 403 to POST /druid/indexer/v1/taskStatus)" in message
    assert "a read-only user gets 403 there" in message


def test_a_bad_certificate_says_which_option_to_set(results):
    ok, message = results["tls_bad_cert"]
    assert not ok
    assert message.startswith("Druid connection test failed at the health check (GET /status/health): ")
    assert "is not signed by a CA this client trusts" in message and "ca_bundle" in message


def test_a_wrong_password_is_named_as_such(results):
    ok, message = results["tls_wrong_password"]
    assert not ok
    assert "failed at the login check (GET /druid/indexer/v1/workers)" in message
    assert "Druid rejected the login" in message and "HTTP 401" in message


def test_a_cross_host_redirect_is_refused_with_advice(results):
    ok, message = results["tls_redirect"]
    assert not ok
    assert "failed at the health check" in message and "a host that is not part of the connection" in message
    assert "trusted_hosts" in message and "HTTP 307" in message


def test_a_wrong_port_says_nothing_listens(results):
    ok, message = results["tls_wrong_port"]
    port = results["_port"][1]
    assert not ok
    assert f"could not connect to 127.0.0.1:{port}: connection refused, nothing listens there" in message


def test_plain_http_on_the_tls_port_says_use_https(results):
    ok, message = results["tls_plain_http"]
    assert not ok
    assert "is a TLS port: use https://" in message


def test_a_bearer_token_connection_passes(results):
    ok, message = results["token_ok"]
    assert ok, message
    assert message.startswith(f"Connected to Druid at {results['_token'][1]}: healthy, Overlord leader, ")


def test_a_wrong_bearer_token_names_the_token(results):
    ok, message = results["token_wrong"]
    assert not ok
    assert "failed at the login check (GET /druid/indexer/v1/workers)" in message
    assert "Druid rejected the bearer token: it was sent and refused" in message
    assert "the connection's Password with extra auth=bearer" in message and "HTTP 401" in message


def test_a_client_certificate_connection_passes_and_none_names_the_extras(results):
    ok, message = results["mtls_ok"]
    assert ok, message
    assert message.startswith(f"Connected to Druid at {results['_mtls'][1]}: healthy, Overlord leader, ")
    ok, message = results["mtls_none"]
    assert not ok
    assert "failed at the health check (GET /status/health)" in message
    assert "requires a TLS client certificate and none was sent" in message
    assert "client_cert and client_key extras" in message


def test_a_proxy_connection_passes(results):
    ok, message = results["proxy_http"]
    assert ok, message
