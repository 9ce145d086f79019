"""TLS, basic auth, a read-only user and a cross-host leader redirect, through a real nginx in front of the real
Druid (dev/nginx/nginx.sh), checked on nginx's own access log (which records whether an Authorization header
arrived, never its value). Both transports (requests and aiohttp) are exercised where they differ.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import (
    DruidAuthError,
    DruidError,
    DruidInputProbeRefusedError,
    DruidRedirectError,
    DruidTLSError,
)
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.net import free_port

from . import nginx_harness
from .test_real_druid import POLL, build, wait_sql

pytestmark = pytest.mark.timeout(600)
#: generous on purpose: a fatal error must not use any of it
RETRY = RetryPolicy(max_attempts=6, initial_delay=0.5, max_delay=2, deadline=30)
TASK = "/druid/indexer/v1/task"


@pytest.fixture(scope="module")
def nginx() -> nginx_harness.Nginx:
    return nginx_harness.load()


def config(nginx: nginx_harness.Nginx, who: str | None = "admin", **kw: Any) -> ClusterConfig:
    user = {"admin": nginx.admin, "reader": nginx.reader}.get(who or "")
    kw.setdefault("url", nginx.tls_url)
    kw.setdefault("ca_bundle", nginx.ca_bundle)
    if user:
        kw.setdefault("username", user[0])
        kw.setdefault("password", user[1])
    return ClusterConfig(read_timeout=120, **kw)


def hostport(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[0]


def run_async(cfg: ClusterConfig, method: str, *args: Any, retry: RetryPolicy = RETRY) -> Any:
    async def go() -> Any:
        async with AsyncDruidClient(cfg, retry) as client:
            return await getattr(client, method)(*args)

    return asyncio.run(go())


def raised(fn: Any, *args: Any) -> tuple[DruidError, float]:
    started = time.monotonic()
    with pytest.raises(DruidError) as info:
        fn(*args)
    return info.value, time.monotonic() - started


def sync_call(cfg: ClusterConfig, method: str, *args: Any, retry: RetryPolicy = RETRY) -> Any:
    with DruidClient(cfg, retry) as client:
        return getattr(client, method)(*args)


@pytest.fixture(scope="module")
def ingested(nginx, spec_template, events_dir, expected) -> Iterator[dict[str, Any]]:
    """One ingestion + handoff through nginx: submit with requests, both waits with aiohttp (as a triggerer)."""
    ds, day = "tls_events", "2026-11-01"
    spec = build(spec_template, events_dir, day, ds)
    mark = nginx.access.mark()
    cfg = config(nginx)
    with DruidClient(cfg, RETRY) as client:
        outcome = client.ensure_submitted(spec, idempotency_key=f"tls-{time.time_ns()}")

    async def wait() -> Any:
        async with AsyncDruidClient(cfg, RETRY) as client:
            status = await client.wait_for_task(outcome.task_id, timeout=300, schedule=POLL)
            assert status.state == "SUCCESS", status
            intervals = spec["spec"]["dataSchema"]["granularitySpec"]["intervals"]
            target = await client.handoff_target(outcome.task_id, ds, intervals,
                                                 version_ceiling=status.version_ceiling)
            return await client.wait_for_handoff(target, timeout=300, schedule=POLL)

    result = asyncio.run(wait())
    with DruidClient(cfg, RETRY) as client:
        counts = wait_sql(client, ds, day, expected[day])
    yield {"task_id": outcome.task_id, "action": outcome.action, "result": result, "counts": counts,
           "want": expected[day], "hits": nginx.access.since(mark)}


def test_verification_is_on_by_default_and_rejects_the_private_ca(nginx):
    mark = nginx.access.mark()
    for call in (sync_call, run_async):
        error, took = raised(call, config(nginx, ca_bundle=None), "capacity")
        assert isinstance(error, DruidTLSError), error
        text = str(error)
        assert f"the TLS certificate of {hostport(nginx.tls_url)} is not signed by a CA this client trusts" in text
        assert "CERTIFICATE_VERIFY_FAILED" in text and "ca_bundle" in text
        assert took < 1.0, f"a bad certificate is fatal: no retry backoff ({took:.2f}s)"
    assert nginx.access.since(mark) == [], "the handshake failed: no HTTP request reached nginx"


def test_ca_bundle_accepts_it_and_an_ingestion_goes_green_through_nginx(ingested):
    assert ingested["action"] == "submitted"
    assert ingested["result"].state == "loaded", ingested["result"]
    assert ingested["counts"] == ingested["want"]
    hits = ingested["hits"]
    submits = [h for h in hits if h.method == "POST" and h.path == TASK]
    assert [(h.status, h.auth_header, h.user) for h in submits] == [(200, True, "druid_admin")]
    # no refusal at all: the attempt chain is looked up in one bulk status call (unknown ids are simply absent)
    refused = [(h.method, h.path, h.status) for h in hits if h.status >= 400]
    assert refused == [], refused
    assert [(h.method, h.path, h.status) for h in hits if h.path == f"{TASK}Status"][:1] == [
        ("POST", f"{TASK}Status", 200)]
    assert all(h.auth_header for h in hits), "every call carries the login"


def test_wrong_password_is_a_clear_401_at_once(nginx):
    for call in (sync_call, run_async):
        mark = nginx.access.mark()
        error, took = raised(call, config(nginx, password="not-the-password"), "capacity")
        assert isinstance(error, DruidAuthError) and error.status == 401, error
        assert "Druid rejected the login: the user name and password were sent and refused" in str(error)
        assert "check the connection's Login and Password" in str(error)
        hits = nginx.access.since(mark)
        assert [(h.status, h.auth_header) for h in hits] == [(401, True)], f"no retries on 401: {hits}"
        assert took < 1.0


def test_missing_login_says_none_was_sent(nginx):
    error, _ = raised(sync_call, config(nginx, who=None), "capacity")
    assert isinstance(error, DruidAuthError) and error.status == 401
    assert "Druid requires a login and none was sent" in str(error)


def test_read_only_user_gets_a_clear_403_on_submit_and_reads_still_work(nginx, ingested, spec_template, events_dir):
    reader = config(nginx, "reader")
    spec = build(spec_template, events_dir, "2026-11-02", "tls_readonly")
    mark = nginx.access.mark()
    # the dropExisting replace's input probe comes first: the sampler needs STATE WRITE, so the replace stops there,
    # before any submit (issue 27 item 3: the probe fails closed, naming the permission and the opt-out)
    error, _ = raised(sync_call, reader, "ensure_submitted", spec)
    assert isinstance(error, DruidInputProbeRefusedError) and error.status == 403, error
    assert "STATE WRITE" in str(error) and "allow_empty=True" in str(error), error
    assert not [h for h in nginx.access.since(mark) if h.method == "POST" and h.path == TASK]
    mark = nginx.access.mark()
    with_opt_out = {**spec, "spec": {**spec["spec"], "ioConfig": {**spec["spec"]["ioConfig"], "dropExisting": False}}}
    error, took = raised(sync_call, reader, "ensure_submitted", with_opt_out)  # a legacy replace is not probed
    assert isinstance(error, DruidAuthError) and error.status == 403, error
    text = str(error)
    assert "the login is valid but this user is not permitted to call POST /druid/indexer/v1/task" in text
    assert "DATASOURCE WRITE" in text and 'server said: "Unauthorized"' in text
    submits = [h for h in nginx.access.since(mark) if h.method == "POST" and h.path == TASK]
    assert [(h.status, h.user) for h in submits] == [(403, "druid_reader")], "one refused POST, no retries"
    assert took < 2.0

    error, _ = raised(sync_call, reader, "shutdown", ingested["task_id"])
    assert isinstance(error, DruidAuthError) and error.status == 403 and "shutdown" in str(error)

    # reads: status, workers, SQL; bulk status is STATE WRITE: refused, then read per task
    task_id = ingested["task_id"]
    mark = nginx.access.mark()
    with DruidClient(reader, RETRY) as client:
        assert client.status(task_id).state == "SUCCESS"
        assert client.capacity().total_slots >= 1
        assert client.state_write_permitted() is False
        assert set(client.bulk_status([task_id])) == {task_id}
        rows = client.sql('SELECT COUNT(*) AS n FROM "tls_events"')
    assert rows[0]["n"] == ingested["want"]["rollup_rows"]
    assert run_async(reader, "status", task_id).state == "SUCCESS"
    hits = nginx.access.since(mark)
    assert {(h.method, h.path.split("?")[0], h.status) for h in hits if h.status == 403} == {
        ("POST", "/druid/indexer/v1/taskStatus", 403)}
    assert any(h.method == "GET" and h.path.endswith("/status") and h.status == 200 for h in hits)


def test_cross_host_redirect_never_carries_the_authorization_header(nginx):
    for call in (sync_call, run_async):
        mark, rmark = nginx.access.mark(), nginx.redirects.mark()
        error, _ = raised(call, config(nginx, url=nginx.redirect_url), "capacity")
        assert isinstance(error, DruidRedirectError) and error.status == 307, error
        assert f"{nginx.tls_url}, a host that is not part of the connection" in str(error)
        assert "the login was not sent to it" in str(error) and "trusted_hosts" in str(error)
        assert [(h.status, h.auth_header) for h in nginx.redirects.since(rmark)] == [(307, True)]
        assert nginx.access.since(mark) == [], "nothing, and so no Authorization header, reached the other host"

    # without a login the redirect is followed (nothing to leak); the other host sees no Authorization header
    mark = nginx.access.mark()
    assert sync_call(config(nginx, who=None, url=nginx.redirect_url), "health") is True
    assert [(h.path, h.auth_header) for h in nginx.access.since(mark)] == [("/status/health", False)]

    # trusting the other host explicitly is the opt-in: then the login goes there
    mark = nginx.access.mark()
    trusted = config(nginx, url=nginx.redirect_url, trusted_hosts=(hostport(nginx.tls_url),))
    assert sync_call(trusted, "capacity").total_slots >= 1
    assert [(h.path, h.auth_header, h.user) for h in nginx.access.since(mark)] == [
        ("/druid/indexer/v1/workers", True, "druid_admin")]


def test_passwords_never_reach_a_log_an_exception_or_nginx(nginx, ingested, caplog):
    caplog.set_level(logging.DEBUG)
    texts: list[str] = []
    scenarios = [
        (config(nginx, ca_bundle=None), "capacity"),
        (config(nginx, password=nginx.admin[1] + "-wrong"), "capacity"),
        (config(nginx, "reader"), "shutdown"),
        (config(nginx, url=nginx.redirect_url), "capacity"),
        (config(nginx, url=f"https://127.0.0.1:{free_port()}"), "health"),
    ]
    for cfg, method in scenarios:
        texts.append(repr(cfg))
        for call in (sync_call, run_async):
            args = (ingested["task_id"],) if method == "shutdown" else ()
            with pytest.raises(DruidError) as info:  # one attempt: a refused port is retried otherwise
                call(cfg, method, *args, retry=RetryPolicy(max_attempts=1))
            texts += [str(info.value), repr(info.value), "".join(traceback.format_exception(info.value))]
    # and the calls that work, logged at DEBUG too (urllib3 and aiohttp log each request line)
    assert sync_call(config(nginx), "status", ingested["task_id"]).state == "SUCCESS"
    assert run_async(config(nginx, "reader"), "status", ingested["task_id"]).state == "SUCCESS"
    texts.append(caplog.text)
    texts += [Path(p).read_text() for p in nginx.log_files]
    secrets = []
    for user, password in (nginx.admin, nginx.reader):
        secrets += [password, base64.b64encode(f"{user}:{password}".encode()).decode()]
    secrets.append(nginx.admin[1] + "-wrong")
    leaks = [(s[:3] + "...", t[:200]) for s in secrets for t in texts if s in t]
    assert leaks == []
    assert any("rejected the login" in t for t in texts)  # the scenarios did fail as meant
