"""The rules of an orchestrator's ingesting step that are the same in every face (Airflow, Dagster, a script).

Each rule returns what to say (a :data:`StepLine`: level and message) instead of logging or raising, so a face
keeps only its translation: ``error`` becomes its no-retry failure, the other levels its logger's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

from druid_ingest.errors import DruidAuthError, DruidError
from druid_ingest.ops._capacity import cluster_capacity, slots_finding
from druid_ingest.ops._history import WaitMemory
from druid_ingest.ops._outcomes import SubmitOutcome
from druid_ingest.wire import Operation, RetryPolicy

__all__ = ["SHUTDOWN_RETRY", "StepLine", "capacity_verdict", "shutdown_task", "submit_lines"]

StepLine = tuple[Literal["info", "warning", "error"], str]

#: a shutdown runs while a step is torn down (killed, timed out): two quick tries, never the long deadline
SHUTDOWN_RETRY = RetryPolicy(max_attempts=2, initial_delay=0.2, deadline=20.0)


class _Stopper(Protocol):
    def shutdown(self, task_id: str) -> Any: ...


def capacity_verdict(peak_slots: int, memory: WaitMemory | None = None) -> Operation[StepLine | None]:
    """The spec's peak slots against the cluster's (``cluster_capacity``: one ``GET /workers``, kept in
    ``memory`` for its TTL): ``error`` when it would deadlock (fail, no retry), ``warning`` when it runs with less
    parallelism, None when it fits. Listing workers needs STATE READ: without it (403) nothing is checked (an
    ``info`` line says so); a 401 says the credentials were rejected. Every face and ``ingest`` run this one.

    A plan needing one slot is not checked (no request): it cannot deadlock, and the only finding it could get (a
    cluster with no slot at all right now) is a warning that an autoscaled or restarting cluster makes untrue by the
    time Druid schedules the task, which waits PENDING for a worker meanwhile."""
    if peak_slots <= 1:
        return None
    try:
        capacity = yield from cluster_capacity(memory)
    except DruidAuthError as exc:
        if exc.status == 401:  # authentication: the login itself was refused, not a missing permission
            return ("info", "Not checking Druid's task slots: Druid rejected these credentials (HTTP 401, "
                            "authentication failed)")
        return ("info", "Not checking Druid's task slots: these credentials may not list workers (STATE READ)")
    return slots_finding(peak_slots, capacity)


def submit_lines(outcome: SubmitOutcome, described: str, console_url: str | None) -> list[StepLine]:
    """What a step says after ``ensure_submitted``: why a FAILED attempt's successor was submitted, the input
    probe's line (a warning when it was skipped or indexed nothing), then which task it submitted or adopted,
    with the console URL."""
    lines: list[StepLine] = []
    if outcome.previous_attempt is not None:
        lines.append(("warning", outcome.previous_attempt))
    if outcome.input_probe is not None:
        lines.append(("warning" if outcome.input_probe_warns else "info", outcome.input_probe))
    if outcome.action == "submitted":
        lines.append(("info", f"Submitted Druid task {outcome.task_id} (attempt {outcome.attempt}): {described}. "
                              f"Console: {console_url}"))
    else:
        lines.append(("info", f"Adopted existing Druid task {outcome.task_id} (state {outcome.state}, attempt "
                              f"{outcome.attempt}): same work, not resubmitting. Console: {console_url}"))
    return lines


def shutdown_task(
    open_client: Callable[[RetryPolicy], AbstractContextManager[_Stopper]], task_id: str, reason: str
) -> StepLine:
    """Ask the Overlord to stop the task with :data:`SHUTDOWN_RETRY`; a failure is reported, never raised, so
    it cannot hide the real reason the step is ending."""
    try:
        with open_client(SHUTDOWN_RETRY) as client:
            client.shutdown(task_id)
    except DruidError as exc:
        return ("warning", f"Could not shut down Druid task {task_id} ({reason}): {exc}")
    return ("warning", f"Shut down Druid task {task_id} ({reason})")
