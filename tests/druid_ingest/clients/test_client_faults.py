"""Fault injection over real sockets, for both clients: transient faults end with exactly one task and the
right outcome; fatal answers fail on the first response with zero retries; malformed specs never reach
Druid; credentials never reach logs or messages."""

from __future__ import annotations

import logging

import pytest
from druid_ingest.errors import (
    DruidAuthError,
    DruidNotFoundError,
    DruidRedirectError,
    DruidUnsupportedMediaTypeError,
    DruidValidationError,
    SpecValidationError,
)
from druid_ingest.testing import FakeDruid, Fault

from tests.druid_ingest.sample_specs import day_spec, interval_of

pytestmark = pytest.mark.timeout(60)

SUBMIT = ("POST", r"^/druid/indexer/v1/task$")
STATUS = ("GET", r"^/druid/indexer/v1/task/[^/]+/status$")
HANDOFF = ("POST", r"^/druid/coordinator/v1/metadata/datasources/[^/]+/segments$")
SERVED = ("GET", r"^/druid/coordinator/v1/datasources/[^/]+/intervals/")

TRANSIENT = {
    "500": {"kind": "status", "status": 500, "body": '{"error":"druidException","errorMessage":"boom"}'},
    "502-html": {"kind": "html", "status": 502},
    "reset": {"kind": "reset"},
    "read-timeout": {"kind": "delay", "delay": 1.5},
    "503-leaderless": {"kind": "leaderless"},
    "503-queue": {"kind": "queue_not_ready"},
    "429": {"kind": "throttle"},
}


def run_ingestion(client, spec) -> tuple[str, str]:
    outcome = client.ensure_submitted(spec)
    status = client.wait_for_task(outcome.task_id, timeout=30)
    target = client.handoff_target(outcome.task_id, "events_web", interval_of(spec))
    return outcome.task_id, client.wait_for_handoff(target, timeout=30).state if status.state == "SUCCESS" else ""


@pytest.mark.parametrize("where", [SUBMIT, STATUS, HANDOFF, SERVED], ids=["submit", "status", "handoff", "served"])
@pytest.mark.parametrize("fault", list(TRANSIENT), ids=list(TRANSIENT))
def test_transient_fault_matrix(fault: str, where: tuple[str, str], fake_druid: FakeDruid, make_client) -> None:
    method, path = where
    fake_druid.add_fault(Fault(method=method, path=path, times=2, **TRANSIENT[fault]))
    client = make_client()
    task_id, handoff = run_ingestion(client, day_spec())
    assert handoff == "loaded"
    tasks = {r.json["id"] for r in fake_druid.submit_requests() if r.json}
    assert tasks == {task_id}, "exactly one task id was ever submitted"
    assert fake_druid.task(task_id).state == "SUCCESS"
    hits = [r for r in fake_druid.requests if r.method == method and __import__("re").search(path, r.path)]
    assert len(hits) >= 3  # two faulted answers, then a good one


def test_redirect_to_leader_is_followed(make_client) -> None:
    with FakeDruid() as leader, FakeDruid() as follower:
        follower.add_fault(
            Fault(method=None, path=r"^/druid/indexer/", kind="redirect", redirect_to=leader.url, times=None)
        )
        client = make_client(follower.url, coordinator_url=leader.url, broker_url=leader.url,
                             username="u", password="pw")
        task_id, handoff = run_ingestion(client, day_spec())
        assert handoff == "loaded" and leader.task(task_id) is not None and follower.task(task_id) is None
        assert all(r.headers.get("Authorization", "").startswith("Basic ") for r in leader.requests)


def test_redirect_to_unknown_host_keeps_credentials_home(make_client) -> None:
    with FakeDruid() as leader, FakeDruid() as follower:
        follower.add_fault(
            Fault(method=None, path=r"^/druid/indexer/", kind="redirect", redirect_to=leader.url, times=None)
        )
        client = make_client(follower.url, username="u", password="pw")
        with pytest.raises(DruidRedirectError, match="trusted_hosts"):
            client.ensure_submitted(day_spec())
        assert leader.requests == []


FATAL = {
    "400": (400, '{"error":"Cannot construct instance of `ParallelIndexSupervisorTask`, problem: bad"}',
            DruidValidationError),
    "401": (401, '{"error":"Unauthorized request","errorMessage":null}', DruidAuthError),
    "403": (403, '{"Access-Check-Result":"Unauthorized"}', DruidAuthError),
    "404": (404, "<html><body>Not Found</body></html>", DruidNotFoundError),
    "415": (415, "Unsupported Media Type", DruidUnsupportedMediaTypeError),
}


@pytest.mark.parametrize("case", list(FATAL))
def test_fatal_submit_fails_on_first_response(case: str, fake_druid: FakeDruid, make_client) -> None:
    status, body, error = FATAL[case]
    fake_druid.add_fault(Fault(method="POST", path=SUBMIT[1], kind="status", status=status, body=body, times=None))
    client = make_client()
    with pytest.raises(error) as info:
        client.ensure_submitted(day_spec())
    assert len(fake_druid.submit_requests()) == 1, "no retries burned"
    assert f"HTTP {status}" in str(info.value)


def test_fatal_status_poll_fails_at_once(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    task_id = client.ensure_submitted(day_spec()).task_id
    fake_druid.clear_requests()
    fake_druid.add_fault(Fault(method="GET", path=STATUS[1], kind="status", status=403,
                               body='{"Access-Check-Result":"Unauthorized"}', times=None))
    with pytest.raises(DruidAuthError):
        client.wait_for_task(task_id, timeout=10)
    assert len(fake_druid.requests) == 1


MALFORMED = [
    lambda s: s.pop("type"),
    lambda s: s.update(type="index_hadoop_typo"),
    lambda s: s["spec"].pop("dataSchema"),
    lambda s: s["spec"].pop("ioConfig"),
    lambda s: s["spec"].update(tuningConfig="dynamic"),  # absent is fine (Druid defaults it); a string is not
    lambda s: s["spec"]["dataSchema"].update(dataSource=""),
    lambda s: s["spec"]["dataSchema"].update(dataSource="a/b"),
    lambda s: s["spec"]["dataSchema"].pop("timestampSpec"),
    lambda s: s["spec"]["dataSchema"]["granularitySpec"].update(intervals=["2026-11-02/2026-11-01"]),
    lambda s: s["spec"]["dataSchema"]["granularitySpec"].update(intervals=["yesterday"]),
    lambda s: s["spec"]["dataSchema"]["granularitySpec"].update(intervals=[]),
    lambda s: s["spec"]["dataSchema"]["granularitySpec"].update(segmentGranularity="FORTNIGHT"),
    lambda s: s["spec"]["dataSchema"]["granularitySpec"].update(segmentGranularty="DAY"),
    lambda s: s["spec"]["ioConfig"].update(appendToExisting=True),
    lambda s: s["spec"]["ioConfig"].update(dropExisitng=True),
    lambda s: s["spec"]["ioConfig"].pop("inputSource"),
    lambda s: s["spec"]["ioConfig"].pop("inputFormat"),
    lambda s: s["spec"]["ioConfig"].update(type="index"),
    lambda s: s["spec"]["tuningConfig"].update(partitionsSpec={"type": "dynamic"}),
    lambda s: s["spec"]["tuningConfig"].update(partitionsSpec={"type": "range", "partitionDimensions": []}),
    lambda s: s["spec"]["tuningConfig"].update(forceGuarenteedRollup=False),
    lambda s: s["spec"]["tuningConfig"].update(maxNumConcurrentSubTasks=0),
    lambda s: s["spec"]["tuningConfig"].update(maxNumSubTasks=2, maxNumConcurrentSubTasks=2),
    lambda s: s["spec"]["dataSchema"].update(metricsSpec=[{"type": "longSum", "name": "bytes"}]),
    lambda s: s.update(id="bad/id"),
]


@pytest.mark.parametrize("breaker", range(len(MALFORMED)))
def test_malformed_specs_never_reach_druid(breaker: int, fake_druid: FakeDruid, make_client) -> None:
    spec = day_spec()
    MALFORMED[breaker](spec)
    client = make_client()
    with pytest.raises(SpecValidationError) as info:
        client.ensure_submitted(spec, datasource="events_web", intervals=["2026-11-01/2026-11-02"])
    assert fake_druid.requests == []
    assert all(p.path for p in info.value.problems)
    assert any(p.path.startswith(("spec.", "type", "id", "$")) for p in info.value.problems), str(info.value)


PASSWORD = "s3cr3t-Pa55"


def test_credentials_never_in_logs_or_errors(caplog: pytest.LogCaptureFixture, make_client) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeDruid(auth={"admin": ("right-password", "write")}) as fake:
        client = make_client(fake.url, username="admin", password=PASSWORD)
        with pytest.raises(DruidAuthError) as info:
            client.ensure_submitted(day_spec())
        texts = [str(info.value), repr(info.value), repr(client.client), repr(client.config), info.value.body or ""]
        assert fake.requests[0].headers.get("Authorization", "").startswith("Basic ")
        url_with_userinfo = fake.url.replace("http://", f"http://admin:{PASSWORD}@")
        client2 = make_client(url_with_userinfo)
        with pytest.raises(DruidAuthError) as info2:
            client2.status("x")
        texts += [str(info2.value), repr(client2.config), caplog.text]
    for text in texts:
        assert PASSWORD not in text


RACE_404 = {"kind": "status", "status": 404, "content_type": "application/json"}


def test_race_shaped_404_is_transient_a_bounded_number_of_times(fake_druid: FakeDruid, make_client) -> None:
    """Druid's status method can answer 404 {"task": id, "status": null} in a race (druid-contract §status): one
    such answer ended a 12-hour wait at once. A few in a row are looked past; more than MAX_UNKNOWN_LOOKS are not."""
    from druid_ingest.errors import UnknownTaskError
    from druid_ingest.ops.waits import MAX_UNKNOWN_LOOKS

    client = make_client()
    task_id = client.ensure_submitted(day_spec()).task_id
    body = f'{{"task": "{task_id}", "status": null}}'
    fake_druid.add_fault(Fault(method="GET", path=STATUS[1], body=body, times=MAX_UNKNOWN_LOOKS, **RACE_404))
    assert client.wait_for_task(task_id, timeout=30).state == "SUCCESS"
    fake_druid.add_fault(Fault(method="GET", path=STATUS[1], body=body, times=None, **RACE_404))
    fake_druid.clear_requests()
    with pytest.raises(UnknownTaskError):
        client.wait_for_task(task_id, timeout=30)
    assert len(fake_druid.requests_matching("GET", f"/druid/indexer/v1/task/{task_id}/status")) == MAX_UNKNOWN_LOOKS + 1


def test_a_plain_404_for_a_task_already_seen_is_looked_past(fake_druid: FakeDruid, make_client) -> None:
    """Once a wait has seen its task, a plain "Cannot find any task" (a restarted Overlord not yet caught up, a
    proxy's stale answer) is transient like the race-shaped one: a few such looks, then SUCCESS."""
    from druid_ingest.testing import TaskPlan

    fake_druid.plan_next_task(TaskPlan(duration=1.5))
    client = make_client()
    task_id = client.ensure_submitted(day_spec()).task_id
    fake_druid.add_fault(Fault(method="GET", path=STATUS[1], kind="status", status=404, content_type="text/plain",
                               body=f"Cannot find any task with id: [{task_id}]", after=1, times=2))
    assert client.wait_for_task(task_id, timeout=30).state == "SUCCESS"
    assert len(fake_druid.requests_matching("GET", f"/druid/indexer/v1/task/{task_id}/status")) >= 4


def test_plain_unknown_task_is_believed_at_once(fake_druid: FakeDruid, make_client) -> None:
    from druid_ingest.errors import UnknownTaskError

    client = make_client()
    with pytest.raises(UnknownTaskError):
        client.wait_for_task("never_submitted_task", timeout=30)
    assert len(fake_druid.requests) == 1


def test_timeout_says_the_druid_task_still_runs_and_how_to_stop_it(fake_druid: FakeDruid, make_client) -> None:
    from druid_ingest.errors import DruidWaitTimeoutError
    from druid_ingest.testing import TaskPlan

    fake_druid.plan_next_task(TaskPlan(duration=30))
    client = make_client()
    task_id = client.ensure_submitted(day_spec()).task_id
    with pytest.raises(DruidWaitTimeoutError) as info:
        client.wait_for_task(task_id, timeout=0.5)
    text = str(info.value)
    assert "keeps running in Druid" in text and f"/druid/indexer/v1/task/{task_id}/shutdown" in text
    assert fake_druid.task(task_id).is_active
