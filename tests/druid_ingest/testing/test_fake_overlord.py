"""The fake Overlord over real sockets (plain requests): submit, status, bulk status, reports, shutdown."""

from __future__ import annotations

import re
import threading
import time

import pytest
import requests
from druid_ingest.testing import TaskPlan, index_parallel_spec

from tests.druid_ingest.testing.waiting import wait_until

V1 = "/druid/indexer/v1"


def submit(fake, spec, **kw):
    return requests.post(fake.url + V1 + "/task", json=spec, timeout=5, **kw)


def status(fake, task_id):
    return requests.get(f"{fake.url}{V1}/task/{task_id}/status", timeout=5)


def wait_done(fake, task_id):
    return wait_until(lambda: (s := status(fake, task_id).json()["status"])["statusCode"] != "RUNNING" and s)


def test_fixture_and_lifecycle(fake_druid):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", fake_druid.url)
    assert requests.get(fake_druid.url + "/status/health", timeout=5).json() is True
    resp = submit(fake_druid, index_parallel_spec(task_id="t1"))
    assert resp.status_code == 200 and resp.json() == {"task": "t1"}
    first = status(fake_druid, "t1").json()
    assert first["task"] == "t1"
    st = first["status"]
    assert (st["statusCode"], st["status"], st["runnerStatusCode"], st["duration"]) == (
        "RUNNING", "RUNNING", "WAITING", -1)
    assert st["queueInsertionTime"] == "1970-01-01T00:00:00.000Z"
    assert st["location"] == {"host": None, "port": -1, "tlsPort": -1}
    assert set(st) == {"id", "groupId", "type", "createdTime", "queueInsertionTime", "statusCode", "status",
                       "runnerStatusCode", "duration", "location", "dataSource", "errorMsg"}
    wait_until(lambda: status(fake_druid, "t1").json()["status"]["runnerStatusCode"] == "RUNNING")
    done = wait_done(fake_druid, "t1")
    # A.2 quirk: a completed task reports runnerStatusCode WAITING.
    assert (done["statusCode"], done["runnerStatusCode"]) == ("SUCCESS", "WAITING")
    assert done["duration"] >= 250 and done["location"]["host"] == "127.0.0.1"
    task = fake_druid.task("t1")
    assert task.state == "SUCCESS" and task.version and len(task.segments) == 1
    assert fake_druid.task("nope") is None


def test_slot_limits_second_parallel_task_pending(fake_druid_factory):
    fake = fake_druid_factory(worker_capacity=4, task_duration=0.4, pending_delay=0.01)
    for tid, day in (("a", "2024-01-01/2024-01-02"), ("b", "2024-01-02/2024-01-03")):  # no lock conflict
        assert submit(fake, index_parallel_spec(intervals=[day], task_id=tid, max_subtasks=2)).status_code == 200
    wait_until(lambda: fake.task("a").runner_state == "RUNNING")
    time.sleep(0.05)
    assert status(fake, "b").json()["status"]["runnerStatusCode"] == "PENDING"
    workers = requests.get(fake.url + V1 + "/workers", timeout=5).json()
    assert workers[0]["currCapacityUsed"] == 3 and workers[0]["runningTasks"] == ["a"]
    cap = requests.get(fake.url + V1 + "/totalWorkerCapacity", timeout=5).json()
    assert cap == {"currentClusterCapacity": 4, "maximumCapacityWithAutoScale": 4, "usedClusterCapacity": 3}
    pending = requests.get(fake.url + V1 + "/tasks?state=pending", timeout=5).json()
    assert [t["id"] for t in pending] == ["b"] and pending[0]["runnerStatusCode"] == "PENDING"
    wait_done(fake, "a")
    assert wait_done(fake, "b")["statusCode"] == "SUCCESS"
    # b only started once a freed its slots: its version is later.
    assert fake.task("b").version > fake.task("a").version
    complete = requests.get(fake.url + V1 + "/tasks?state=complete&max=1", timeout=5).json()
    assert len(complete) == 1 and complete[0]["runnerStatusCode"] == "NONE"


def test_sequential_tasks_share_capacity_one_slot_each(fake_druid_factory):
    # Tasks that outlast the test: with 0.3 s, three submits on a loaded machine took longer than s1 ran, s1 ended
    # and s3 took its slot (the fake was right; the test's timing was not).
    fake = fake_druid_factory(worker_capacity=2, task_duration=60.0, pending_delay=0.0)
    for n, tid in enumerate(("s1", "s2", "s3"), start=1):  # one day each: no lock conflict
        submit(fake, index_parallel_spec(intervals=[f"2024-01-0{n}/2024-01-0{n + 1}"], task_id=tid))
    time.sleep(0.05)
    states = [fake.task(t).runner_state for t in ("s1", "s2", "s3")]
    assert states == ["RUNNING", "RUNNING", "PENDING"]


def test_generated_id_and_payload(fake_druid):
    resp = submit(fake_druid, index_parallel_spec("wiki"))
    task_id = resp.json()["task"]
    assert re.fullmatch(r"index_parallel_wiki_[a-p]{8}_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", task_id)
    payload = requests.get(f"{fake_druid.url}{V1}/task/{task_id}", timeout=5).json()
    assert payload["task"] == task_id and payload["payload"]["id"] == task_id
    assert payload["payload"]["context"]["forceTimeChunkLock"] is True


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda s: s.pop("type"), "missing type id property 'type'"),
        (lambda s: s.update(type="bogus"), "Could not resolve type id 'bogus'"),
        (lambda s: s["spec"].pop("ioConfig"), "ioConfig"),
        (lambda s: s["spec"]["ioConfig"].update(appendToExisting=True, dropExisting=True),
         "Cannot simultaneously replace and append to existing segments"),
        (lambda s: s["spec"]["ioConfig"].update(dropExisting=True)
         or s["spec"]["dataSchema"]["granularitySpec"].update(intervals=[]),
         "GranularitySpec's intervals cannot be empty when using replace."),
    ],
)
def test_malformed_specs_400_error(fake_druid, mutate, fragment):
    spec = index_parallel_spec(task_id="bad")
    mutate(spec)
    resp = submit(fake_druid, spec)
    assert resp.status_code == 400
    assert set(resp.json()) == {"error"} and fragment in resp.json()["error"]


def test_content_type_json_syntax_and_invalid_id(fake_druid):
    url = fake_druid.url + V1 + "/task"
    assert requests.post(url, data=b"{}", headers={"Content-Type": "text/plain"}, timeout=5).status_code == 415
    # Druid 33 (RECORDED.md §1): a JSON syntax error is 400 {"error": "<Jackson message>"}, not a 500 page.
    resp = requests.post(url, data=b'{"type":"index_parallel", "spec": {',
                         headers={"Content-Type": "application/json"}, timeout=5)
    assert resp.status_code == 400 and resp.json() == {"error": (
        "Unexpected end-of-input: expected close marker for Object (start marker at [Source: "
        "(org.eclipse.jetty.server.HttpInputOverHTTP); line: 1, column: 35])")}
    resp = requests.post(url, data=b"{nope", headers={"Content-Type": "application/json"}, timeout=5)
    assert resp.status_code == 400 and resp.json()["error"].startswith("Unexpected character ('n'")
    # An explicit invalid id fails in the task constructor: a Jackson problem, not an invalidInput druidException.
    resp = submit(fake_druid, index_parallel_spec(task_id="bad/id"))
    assert resp.status_code == 400 and resp.json() == {"error": (
        "Cannot construct instance of `org.apache.druid.indexing.common.task.batch.parallel."
        "ParallelIndexSupervisorTask`, problem: Invalid value for field [task ID]: Value [bad/id] cannot "
        "contain '/'.")}
    resp = submit(fake_druid, index_parallel_spec(task_id=".hidden"))
    assert resp.status_code == 400 and "cannot start with '.'" in resp.json()["error"]
    resp = submit(fake_druid, index_parallel_spec(task_id="tab\there"))
    assert "illegal whitespace" in resp.json()["error"]


def test_duplicate_json_shape(fake_druid):
    assert submit(fake_druid, index_parallel_spec(task_id="dup")).status_code == 200
    resp = submit(fake_druid, index_parallel_spec(task_id="dup"))
    assert resp.status_code == 400
    assert resp.json() == {"error": "druidException", "errorCode": "entryAlreadyExists", "persona": "USER",
                           "category": "INVALID_INPUT", "errorMessage": "Task[dup] already exists",
                           "context": {}}


def test_duplicate_legacy_shape(fake_druid_factory):
    fake = fake_druid_factory(duplicate_shape="legacy")
    submit(fake, index_parallel_spec(task_id="dup"))
    resp = submit(fake, index_parallel_spec(task_id="dup"))
    assert resp.status_code == 400 and resp.json() == {"error": "Task [dup] already exists."}


def test_duplicate_race_variant(fake_druid_factory):
    fake = fake_druid_factory(insert_delay=0.2)
    results = []

    def go():
        results.append(submit(fake, index_parallel_spec(task_id="race")))

    threads = [threading.Thread(target=go) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(r.status_code for r in results)
    assert codes == [200, 400]
    loser = next(r for r in results if r.status_code == 400).json()
    assert loser["errorCode"] == "invalidInput" and loser["errorMessage"] == "Task [race] already exists"
    assert len([t for t in fake.requests_matching("POST", V1 + "/task")]) == 2
    assert len(requests.get(fake.url + V1 + "/tasks", timeout=5).json()) == 1


def test_unknown_task_404s(fake_druid):
    for method, suffix in [("GET", "/status"), ("GET", "/reports"), ("POST", "/shutdown"), ("GET", "")]:
        resp = requests.request(method, f"{fake_druid.url}{V1}/task/ghost{suffix}", timeout=5)
        assert resp.status_code == 404 and resp.text == "Cannot find any task with id: [ghost]"
        assert resp.headers["Content-Type"].startswith("text/plain")


def test_bulk_status_omits_unknown(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.1, pending_delay=0.0)
    submit(fake, index_parallel_spec(task_id="b1"))
    wait_done(fake, "b1")
    submit(fake, index_parallel_spec(task_id="b2"))
    resp = requests.post(fake.url + V1 + "/taskStatus", json=["b1", "b2", "ghost"], timeout=5)
    body = resp.json()
    assert resp.status_code == 200 and set(body) == {"b1", "b2"}
    assert body["b1"]["status"] == "SUCCESS" and body["b1"]["duration"] > 0
    assert body["b2"] == {"id": "b2", "status": "RUNNING", "duration": -1, "errorMsg": None,
                          "location": body["b2"]["location"]}
    assert set(body["b1"]) == {"id", "status", "duration", "errorMsg", "location"}
    for empty in ([], None):
        resp = requests.post(fake.url + V1 + "/taskStatus", json=empty, timeout=5)
        assert resp.status_code == 400 and resp.text == "No Task IDs provided."


def test_reports_404_live_final_parallel(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.3, pending_delay=0.1)
    fake.plan_next_task(TaskPlan(rows_per_bucket=10, unparseable=3, thrown_away=2))
    submit(fake, index_parallel_spec(task_id="r", max_subtasks=2, intervals=["2024-01-01/2024-01-03"],
                                     tuning={"maxSavedParseExceptions": 2}))
    url = f"{fake.url}{V1}/task/r/reports"
    resp = requests.get(url, timeout=5)
    assert resp.status_code == 404 and resp.text.startswith("No task reports were found for this task.")
    wait_until(lambda: fake.task("r").runner_state == "RUNNING")
    live = requests.get(url, timeout=5).json()["ingestionStatsAndErrors"]["payload"]
    assert set(live["rowStats"]) == {"movingAverages", "totals"}
    assert live["ingestionState"] == "BUILD_SEGMENTS"
    wait_done(fake, "r")
    final = requests.get(url, timeout=5).json()
    payload = final["ingestionStatsAndErrors"]["payload"]
    assert payload["ingestionState"] == "COMPLETED"
    assert payload["rowStats"] == {"totals": {"buildSegments": {
        "processed": 20, "processedBytes": 2000, "processedWithError": 0, "thrownAway": 2, "unparseable": 3}}}
    assert len(payload["unparseableEvents"]["buildSegments"]) == 2
    assert payload["segmentsPublished"] == 2 and payload["segmentAvailabilityConfirmed"] is False
    assert final["taskContext"]["payload"]["forceTimeChunkLock"] is True


def test_failed_task_error_truncation(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0)
    msg = "x" * 600 + "MIDDLE" + "y" * 600
    fake.plan_next_task(TaskPlan(outcome="FAILED", error_msg=msg))
    submit(fake, index_parallel_spec(task_id="f"))
    st = wait_done(fake, "f")
    assert st["statusCode"] == "FAILED"
    assert st["errorMsg"] == msg[:512] + f"...{len(msg) - 1024} characters omitted..." + msg[-512:]
    report = requests.get(f"{fake.url}{V1}/task/f/reports", timeout=5).json()
    payload = report["ingestionStatsAndErrors"]["payload"]
    assert payload["errorMsg"] == msg and "segmentsPublished" not in payload
    assert payload["rowStats"]["determinePartitions"]["processed"] == 0  # sequential shape
    assert fake.task("f").segments == []


def test_shutdown(fake_druid_factory):
    fake = fake_druid_factory(task_duration=5.0, pending_delay=0.0)
    submit(fake, index_parallel_spec(task_id="long"))
    wait_until(lambda: fake.task("long").runner_state == "RUNNING")
    resp = requests.post(f"{fake.url}{V1}/task/long/shutdown", timeout=5)
    assert resp.status_code == 200 and resp.json() == {"task": "long"}
    st = status(fake, "long").json()["status"]
    assert st["statusCode"] == "FAILED" and st["errorMsg"] == "Shutdown request from user"
    again = requests.post(f"{fake.url}{V1}/task/long/shutdown", timeout=5)
    assert again.status_code == 200 and again.json() == {"task": "long"}
    assert fake.task("long").segments == []


def test_shutdown_pending_frees_queue_and_has_no_report(fake_druid_factory):
    fake = fake_druid_factory(worker_capacity=1, task_duration=5.0, pending_delay=0.0)
    submit(fake, index_parallel_spec(task_id="p1"))
    submit(fake, index_parallel_spec(intervals=["2024-01-02/2024-01-03"], task_id="p2"))  # no lock conflict
    time.sleep(0.03)
    assert fake.task("p2").runner_state == "PENDING"
    requests.post(f"{fake.url}{V1}/task/p2/shutdown", timeout=5)
    assert fake.task("p2").state == "FAILED"
    assert requests.get(f"{fake.url}{V1}/task/p2/reports", timeout=5).status_code == 404


def test_task_lists_and_invalid_state(fake_druid):
    submit(fake_druid, index_parallel_spec("ds1", task_id="l1"))
    submit(fake_druid, index_parallel_spec("ds2", task_id="l2"))
    tasks = requests.get(fake_druid.url + V1 + "/tasks?datasource=ds2", timeout=5).json()
    assert [t["id"] for t in tasks] == ["l2"]
    resp = requests.get(fake_druid.url + V1 + "/tasks?state=bogus", timeout=5)
    assert resp.status_code == 400 and resp.text.startswith("Invalid task state[bogus]")
    assert requests.get(fake_druid.url + V1 + "/isLeader", timeout=5).json() == {"leader": True}


def test_request_recording(fake_druid):
    fake_druid.clear_requests()
    requests.get(fake_druid.url + V1 + "/task/a%20b/status?x=1&full", headers={"X-Test": "yes"}, timeout=5)
    submit(fake_druid, index_parallel_spec(task_id="rec"))
    recs = fake_druid.requests
    assert [r.method for r in recs] == ["GET", "POST"]
    get = recs[0]
    assert get.path == V1 + "/task/a b/status" and get.raw_path == V1 + "/task/a%20b/status"
    assert get.query == {"x": "1", "full": ""} and get.headers["X-Test"] == "yes" and get.json is None
    assert recs[1].json["id"] == "rec" and recs[1].body
    assert fake_druid.requests_matching("POST") == [recs[1]]
    assert fake_druid.requests_matching(path_prefix=V1 + "/task/a") == [get]


def test_replace_tasks_queue_on_the_time_chunk_lock_in_submission_order(fake_druid_factory):
    """Druid 33 (RECORDED.md §13): a replace task waits (runner WAITING) while another holds its interval's
    time-chunk lock, and gets its version when it acquires the lock: after a later-created task may exist."""
    fake = fake_druid_factory(worker_capacity=4, task_duration=0.4, pending_delay=0.0)
    for tid in ("c", "a", "b"):
        submit(fake, index_parallel_spec(task_id=tid, drop_existing=True))
        time.sleep(0.02)
    time.sleep(0.05)
    assert [fake.task(t).runner_state for t in ("c", "a", "b")] == ["RUNNING", "WAITING", "WAITING"]
    locks = requests.post(f"{fake.url}{V1}/activeLocks", json=[{"datasource": "wiki"}], timeout=5).json()
    assert [(lk["groupId"], lk["version"]) for lk in locks["datasourceToLocks"]["wiki"]] == [
        ("c", fake.task("c").version)]
    running = requests.get(f"{fake.url}{V1}/tasks?state=running&datasource=wiki", timeout=5).json()
    assert running[0]["queueInsertionTime"] > fake.task("c").version
    assert status(fake, "c").json()["status"]["queueInsertionTime"] == "1970-01-01T00:00:00.000Z"
    for tid in ("c", "a", "b"):
        wait_done(fake, tid)
    c, a, b = (fake.task(t) for t in ("c", "a", "b"))
    assert c.version < a.version < b.version
    assert a.version > b.created_time  # the lock order, not createdTime, decides the version
    empty = requests.post(f"{fake.url}{V1}/activeLocks", json=[], timeout=5)
    assert (empty.status_code, empty.text) == (400, "No filter provided")
