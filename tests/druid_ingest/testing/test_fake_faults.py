"""Fault injection and Basic auth of the fake Druid, over real sockets."""

from __future__ import annotations

import time

import pytest
import requests
from druid_ingest.testing import Fault, index_parallel_spec

V1 = "/druid/indexer/v1"
TASK = V1 + "/task"


def post_task(fake, spec=None, **kw):
    return requests.post(fake.url + TASK, json=spec or index_parallel_spec(), timeout=5, **kw)


def test_status_fault_consumed_then_normal(fake_druid):
    fake_druid.add_fault(Fault(method="POST", path=r"/druid/indexer/v1/task$", kind="status", status=500,
                               body="<h1>boom</h1>", content_type="text/html", times=1))
    resp = post_task(fake_druid)
    assert resp.status_code == 500 and resp.text == "<h1>boom</h1>"
    assert resp.headers["Content-Type"].startswith("text/html")
    assert post_task(fake_druid).status_code == 200
    assert len(fake_druid.requests_matching("POST", TASK)) == 2  # faulted requests are recorded too


def test_fault_method_path_after_and_forever(fake_druid):
    fake_druid.add_fault(Fault(method="GET", path=r"/status$", kind="status", status=502, times=None, after=2))
    url = f"{fake_druid.url}{V1}/task/x/status"
    assert [requests.get(url, timeout=5).status_code for _ in range(4)] == [404, 404, 502, 502]
    assert requests.get(fake_druid.url + "/status/health", timeout=5).status_code == 200  # other path
    fake_druid.clear_faults()
    assert requests.get(url, timeout=5).status_code == 404


def test_html_fault(fake_druid):
    fake_druid.add_fault(Fault(path="health", kind="html"))
    resp = requests.get(fake_druid.url + "/status/health", timeout=5)
    assert resp.status_code == 502 and "<title>502 Bad Gateway</title>" in resp.text


def test_reset_fault_connection_error(fake_druid):
    fake_druid.add_fault(Fault(path="health", kind="reset"))
    with pytest.raises(requests.ConnectionError):
        requests.get(fake_druid.url + "/status/health", timeout=5)
    assert requests.get(fake_druid.url + "/status/health", timeout=5).json() is True


def test_delay_fault_read_timeout_then_handled(fake_druid):
    fake_druid.add_fault(Fault(method="POST", path=r"/task$", kind="delay", delay=0.5))
    with pytest.raises(requests.ReadTimeout):
        requests.post(fake_druid.url + TASK, json=index_parallel_spec(task_id="slow"), timeout=(2, 0.15))
    # the delayed request is still handled: the task exists afterwards (a "lost" response)
    deadline = time.time() + 3
    while fake_druid.task("slow") is None and time.time() < deadline:
        time.sleep(0.02)
    assert fake_druid.task("slow") is not None


def test_delay_fault_read_timeout_small_timeout(fake_druid):
    fake_druid.add_fault(Fault(path="health", kind="delay", delay=0.4))
    with pytest.raises(requests.ReadTimeout):
        requests.get(fake_druid.url + "/status/health", timeout=(2, 0.1))


def test_redirect_between_two_fakes(fake_druid_factory):
    follower, leader = fake_druid_factory(), fake_druid_factory()
    follower.add_fault(Fault(path=r"/druid/indexer/", kind="redirect", redirect_to=leader.url, times=None))
    resp = requests.post(follower.url + TASK + "?x=1", json=index_parallel_spec(task_id="r"), timeout=5,
                         allow_redirects=False)
    assert resp.status_code == 307 and resp.headers["Location"] == leader.url + TASK + "?x=1"
    resp = requests.post(follower.url + TASK, json=index_parallel_spec(task_id="r"), timeout=5)
    assert resp.status_code == 200 and resp.json() == {"task": "r"}  # requests keeps method+body on 307
    assert leader.task("r") is not None and follower.task("r") is None


def test_leaderless_queue_not_ready_throttle(fake_druid):
    fake_druid.add_fault(Fault(method="POST", path=r"/task$", kind="leaderless"))
    fake_druid.add_fault(Fault(method="POST", path=r"/task$", kind="queue_not_ready"))
    fake_druid.add_fault(Fault(method="POST", path=r"/task$", kind="throttle"))
    first = post_task(fake_druid)
    assert first.status_code == 503 and "HTTP ERROR 503" in first.text
    second = post_task(fake_druid)
    assert second.status_code == 503 and second.content == b""
    third = post_task(fake_druid)
    assert third.status_code == 429
    body = third.json()
    assert body["category"] == "CAPACITY_EXCEEDED" and body["error"] == "druidException"
    assert "Task queue already contains" in body["errorMessage"]
    assert post_task(fake_druid).status_code == 200


def test_unknown_fault_kind_rejected():
    with pytest.raises(ValueError):
        Fault(kind="explode")


AUTH = {"admin": ("secret", "write"), "reader": ("pw", "read")}


def test_auth_401_missing_and_bad_credentials(fake_druid_factory):
    fake = fake_druid_factory(auth=AUTH)
    resp = requests.get(f"{fake.url}{V1}/tasks", timeout=5)
    assert resp.status_code == 401 and resp.headers["WWW-Authenticate"] == "Basic"
    assert resp.json() == {"error": "Unauthorized request", "errorMessage": None, "errorClass": None,
                           "host": None}
    bad = requests.get(f"{fake.url}{V1}/tasks", auth=("admin", "wrong"), timeout=5)
    assert bad.status_code == 401
    # unsecured paths
    assert requests.get(fake.url + "/status/health", timeout=5).status_code == 200
    assert requests.get(fake.url + V1 + "/isLeader", timeout=5).json() == {"leader": True}
    assert requests.get(fake.url + "/druid/coordinator/v1/isLeader", timeout=5).status_code == 200


def test_auth_403_for_read_user_writes(fake_druid_factory):
    fake = fake_druid_factory(auth=AUTH, task_duration=5.0)
    resp = post_task(fake, index_parallel_spec(task_id="t"), auth=("reader", "pw"))
    assert resp.status_code == 403 and resp.json() == {"Access-Check-Result": "Unauthorized"}
    assert post_task(fake, index_parallel_spec(task_id="t"), auth=("admin", "secret")).status_code == 200
    assert requests.get(f"{fake.url}{V1}/task/t/status", auth=("reader", "pw"), timeout=5).status_code == 200
    shut = requests.post(f"{fake.url}{V1}/task/t/shutdown", auth=("reader", "pw"), timeout=5)
    assert shut.status_code == 403
    bulk = requests.post(f"{fake.url}{V1}/taskStatus", json=["t"], auth=("reader", "pw"), timeout=5)
    assert bulk.status_code == 403  # A.3: STATE WRITE
    ok = requests.post(f"{fake.url}{V1}/taskStatus", json=["t"], auth=("admin", "secret"), timeout=5)
    assert ok.status_code == 200 and "t" in ok.json()
    assert requests.post(f"{fake.url}{V1}/task/t/shutdown", auth=("admin", "secret"), timeout=5).ok
