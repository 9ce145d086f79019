"""The face-neutral step rules both faces translate: capacity verdict, submit lines, short-retry shutdown."""

from __future__ import annotations

import json
from contextlib import contextmanager

from druid_ingest.errors import DruidAuthError, DruidConnectionError, DruidError
from druid_ingest.ops import SHUTDOWN_RETRY, StepLine, SubmitOutcome, capacity_verdict, shutdown_task, submit_lines
from druid_ingest.wire._http import Response


def _verdict(peak: int, reply: int | DruidError) -> StepLine | None:
    """Drive the sans-I/O verdict: its one ``GET /workers`` answered with ``reply`` total slots (one worker), or
    that error thrown back."""
    op = capacity_verdict(peak)
    next(op)
    try:
        if isinstance(reply, DruidError):
            op.throw(reply)
        body = [{"worker": {"host": "mm", "capacity": reply}, "currCapacityUsed": 0}]
        op.send(Response(200, json.dumps(body).encode(), {"Content-Type": "application/json"}, "http://d", "GET"))
    except StopIteration as stop:
        found: StepLine | None = stop.value
        return found
    raise AssertionError("the verdict asked more than one request")


def test_capacity_verdict_levels():
    assert _verdict(2, 4) is None
    assert _verdict(3, 1)[0] == "error"
    level, message = _verdict(5, 3)
    assert level == "warning" and "at most 2 subtask(s)" in message


def test_a_one_slot_plan_asks_nothing_of_the_cluster():
    op = capacity_verdict(1)
    try:
        request = next(op)
    except StopIteration as stop:
        assert stop.value is None
    else:
        raise AssertionError(f"a one-slot plan sent {request}")


def test_capacity_verdict_without_state_read_checks_nothing():
    level, message = _verdict(9, DruidAuthError("403", status=403))
    assert level == "info" and "STATE READ" in message


def test_capacity_verdict_on_401_says_credentials_rejected_not_state_read():
    level, message = _verdict(9, DruidAuthError("401", status=401))
    assert level == "info" and "rejected these credentials" in message and "STATE READ" not in message


def test_submit_lines():
    line = "input probe: warning: the sampler read 2 row(s), none of them indexed"
    probe = SubmitOutcome("t_1", "submitted", 0, "RUNNING", "t", input_probe=line)
    assert submit_lines(probe, "ds [2024-01-01/2024-01-02]", "http://c/t_1") == [
        ("warning", "input probe: warning: the sampler read 2 row(s), none of them indexed"),
        ("info", "Submitted Druid task t_1 (attempt 0): ds [2024-01-01/2024-01-02]. Console: http://c/t_1"),
    ]
    adopted = SubmitOutcome("t_2", "adopted", 1, "SUCCESS", "t")
    [(level, line)] = submit_lines(adopted, "ds", None)
    assert level == "info" and line.startswith("Adopted existing Druid task t_2 (state SUCCESS, attempt 1)")


class _Client:
    def __init__(self, fail: bool) -> None:
        self.fail, self.stopped, self.retry = fail, [], None

    def shutdown(self, task_id: str) -> None:
        if self.fail:
            raise DruidConnectionError("refused")
        self.stopped.append(task_id)


def test_shutdown_task_uses_the_short_retry_and_never_raises():
    for fail in (False, True):
        client = _Client(fail)

        @contextmanager
        def open_client(retry, client=client):
            client.retry = retry
            yield client

        level, line = shutdown_task(open_client, "t_1", "task killed")
        assert client.retry is SHUTDOWN_RETRY and level == "warning"
        if fail:
            assert line.startswith("Could not shut down Druid task t_1 (task killed): ") and not client.stopped
        else:
            assert line == "Shut down Druid task t_1 (task killed)" and client.stopped == ["t_1"]
