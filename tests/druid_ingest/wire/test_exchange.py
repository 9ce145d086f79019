"""The shared retry/redirect loop, driven by hand: decisions without any I/O."""

from __future__ import annotations

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import (
    DruidAuthError,
    DruidConnectionError,
    DruidRedirectError,
    DruidRetriesExhaustedError,
    DruidValidationError,
    DuplicateTaskIdError,
)
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._exchange import HttpCall, Sleep, exchange
from druid_ingest.wire._http import Response, raise_for_status
from druid_ingest.wire._retry import RetryPolicy

CFG = ClusterConfig(url="http://127.0.0.1:1", username="u", password="pw")
FAST = RetryPolicy(max_attempts=4, initial_delay=0.01, max_delay=0.02, deadline=60)


def run(ex, replies, now=None):
    """Feed ``replies`` to an exchange; return (calls, sleeps, result-or-exception)."""
    calls, sleeps = [], []
    reply = None
    replies = list(replies)
    try:
        while True:
            action = ex.send(reply)
            if isinstance(action, Sleep):
                sleeps.append(action.seconds)
                if now is not None:
                    now[0] += action.seconds
                reply = None
            else:
                calls.append(action)
                reply = replies.pop(0)
    except StopIteration as stop:
        return calls, sleeps, stop.value
    except Exception as exc:
        return calls, sleeps, exc


def resp(status, body=b"", **headers):
    return Response(status, body, headers, "http://127.0.0.1:1/x", "GET")


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429])
def test_transient_statuses_retry_then_succeed(status: int) -> None:
    calls, sleeps, result = run(exchange(ep.status("t"), CFG, FAST), [resp(status), resp(200, b"{}")])
    assert len(calls) == 2 and len(sleeps) == 1
    assert isinstance(result, Response) and result.status == 200


def test_connection_errors_retry_until_exhausted() -> None:
    err = DruidConnectionError("refused")
    calls, sleeps, result = run(exchange(ep.status("t"), CFG, FAST), [err] * 4)
    assert len(calls) == 4 and len(sleeps) == 3
    assert isinstance(result, DruidRetriesExhaustedError) and result.last is err


@pytest.mark.parametrize("status", [400, 401, 403, 404, 415])
def test_fatal_statuses_are_returned_at_once(status: int) -> None:
    calls, sleeps, result = run(exchange(ep.submit({}), CFG, FAST), [resp(status, b'{"error":"bad"}')])
    assert len(calls) == 1 and sleeps == []
    assert isinstance(result, Response) and result.status == status


def test_deadline_stops_retries() -> None:
    policy = RetryPolicy(max_attempts=100, initial_delay=10, max_delay=10, deadline=15, jitter=False)
    now = [0.0]
    ex = exchange(ep.status("t"), CFG, policy, clock=lambda: now[0])
    _calls, sleeps, result = run(ex, [resp(500)] * 100, now)
    assert sleeps == [10]
    assert isinstance(result, DruidRetriesExhaustedError)


def test_backoff_is_capped_and_jittered() -> None:
    policy = RetryPolicy(initial_delay=1, max_delay=8, multiplier=2)
    for attempt in range(1, 10):
        base = min(8, 2 ** (attempt - 1))
        assert base / 2 <= policy.backoff(attempt) <= base
    assert PollSchedule(initial=1, max_delay=5, multiplier=2).delay(10) == 5


def test_redirect_to_configured_host_keeps_credentials() -> None:
    cfg = ClusterConfig(url="http://127.0.0.1:1", coordinator_url="http://127.0.0.1:2", username="u", password="p")
    calls, _, result = run(
        exchange(ep.status("t"), cfg, FAST),
        [resp(307, location="http://127.0.0.1:2/druid/indexer/v1/task/t/status"), resp(200)],
    )
    assert [c.url for c in calls] == [
        "http://127.0.0.1:1/druid/indexer/v1/task/t/status",
        "http://127.0.0.1:2/druid/indexer/v1/task/t/status",
    ]
    assert all(isinstance(c, HttpCall) and c.send_auth for c in calls)
    assert result.status == 200


def test_redirect_elsewhere_with_credentials_is_refused_with_advice() -> None:
    _, _, result = run(exchange(ep.status("t"), CFG, FAST), [resp(307, location="http://10.9.9.9:8090/x")])
    assert isinstance(result, DruidRedirectError)
    assert "trusted_hosts" in str(result) and "pw" not in str(result)


def test_redirect_elsewhere_without_credentials_is_followed() -> None:
    cfg = ClusterConfig(url="http://127.0.0.1:1")
    calls, _, result = run(exchange(ep.status("t"), cfg, FAST), [resp(307, location="http://127.0.0.2:9/x"), resp(200)])
    assert calls[1].url == "http://127.0.0.2:9/x" and not calls[1].send_auth and result.status == 200


def test_redirect_loop_is_bounded() -> None:
    loop = resp(307, location="http://127.0.0.1:1/again")
    _, _, result = run(exchange(ep.status("t"), CFG, FAST), [loop] * 10)
    assert isinstance(result, DruidRedirectError)


@pytest.mark.parametrize(
    "body",
    [
        b'{"error":"druidException","errorCode":"entryAlreadyExists","persona":"USER","category":"INVALID_INPUT",'
        b'"errorMessage":"Task[ingest_x] already exists","context":{}}',
        b'{"error":"druidException","errorCode":"invalidInput","errorMessage":"Task [ingest_x] already exists"}',
        b'{"error":"Task [ingest_x] already exists."}',
    ],
)
def test_duplicate_id_shapes(body: bytes) -> None:
    req = ep.submit({"id": "ingest_x"})
    with pytest.raises(DuplicateTaskIdError) as info:
        raise_for_status(Response(400, body, {}, "u", "POST"), req)
    assert info.value.task_id == "ingest_x"


def test_validation_400_keeps_druids_message() -> None:
    body = b'{"error":"Cannot construct instance, problem: GranularitySpec\'s intervals cannot be empty"}'
    with pytest.raises(DruidValidationError, match="intervals cannot be empty"):
        raise_for_status(Response(400, body, {}, "u", "POST"), ep.submit({}))


def test_auth_error_names_no_secret() -> None:
    with pytest.raises(DruidAuthError) as info:
        raise_for_status(Response(401, b'{"error":"Unauthorized request"}', {}, "http://h/x", "GET"), ep.status("t"))
    assert "Unauthorized" in str(info.value)


def test_config_strips_userinfo_and_masks_password() -> None:
    cfg = ClusterConfig(url="http://alice:s3cr3t@127.0.0.1:8888/")
    assert cfg.url == "http://127.0.0.1:8888" and cfg.username == "alice"
    assert cfg.auth == ("alice", "s3cr3t")
    assert "s3cr3t" not in repr(cfg) and "s3cr3t" not in str(cfg)
