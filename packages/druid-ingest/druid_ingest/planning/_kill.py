"""Killing the unused segments of one interval (Druid's ``kill`` task) as a :class:`~druid_ingest.planning.Plan`.

The retention step after a drop: the segments a ``markUnused`` left in the metadata store and deep storage are
deleted for good. Druid's kill task only ever takes *unused* segments (``RetrieveUnusedSegmentsAction``), so
data still served is never touched. On the seam it is one more task kind: a deterministic id (a retried Airflow
task adopts the kill instead of queueing a second), the task wait, and no handoff gate: it publishes nothing
(:attr:`KillPlan.publishes`). Pre-flight is Druid's own constructor rules (``KillUnusedSegmentsTask``, Druid 33:
``batchSize`` and ``limit`` must be positive integers), checked before any HTTP.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning._ids import base_task_id, canonical_interval, canonical_json
from druid_ingest.planning._one_interval import one_interval_problems
from druid_ingest.planning._work import NATIVE_TASK_PATH, WorkKind
from druid_ingest.wire import Request

__all__ = ["KillPlan", "build_kill_plan"]


@dataclass(frozen=True)
class KillPlan:
    """A valid ``kill`` task for one interval. Build it with :func:`build_kill_plan`."""

    spec_json: str
    datasource: str
    intervals: tuple[str, ...]
    base_task_id: str
    peak_slots: int = 1
    warnings: tuple[str, ...] = ()

    @property
    def kind(self) -> WorkKind:
        return "kill"

    @property
    def mode(self) -> str:
        return "KILL"

    @property
    def append(self) -> bool:
        return False

    @property
    def probes_input(self) -> bool:
        return False

    @property
    def publishes(self) -> bool:
        return False  # it deletes: no segment for the handoff gate to wait for

    @property
    def runs_task(self) -> bool:
        return True

    @property
    def task_spec(self) -> None:
        return None

    def describe(self) -> str:
        return (f"KILL the unused segments of {self.datasource!r} in {', '.join(self.intervals)} (used ones are "
                f"never touched); base task id {self.base_task_id}")

    def submit_request(self, task_id: str) -> Request:
        """druid-contract §submit: the ``kill`` task with its pinned ``id``, POSTed to the Overlord."""
        body: dict[str, Any] = json.loads(self.spec_json)
        return Request("POST", "overlord", NATIVE_TASK_PATH, json_body={**body, "id": task_id})


def _positive(name: str, value: Any, problems: list[SpecProblem]) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
        problems.append(SpecProblem(name, "must be a positive integer (Druid's KillUnusedSegmentsTask refuses it)",
                                    value=value))


def build_kill_plan(
    datasource: str,
    interval: str,
    *,
    batch_size: int | None = None,
    limit: int | None = None,
    idempotency_key: str | None = None,
) -> KillPlan:
    """Check a kill of ``interval``'s unused segments of ``datasource`` (no HTTP) and pin its task id.

    ``batch_size``: segments deleted per metadata transaction (Druid's default 100); ``limit``: at most this many
    segments in all. Every problem is named with its field before anything is sent.
    """
    problems, _ = one_interval_problems(datasource, interval, purpose="to clean up")
    _positive("batch_size", batch_size, problems)
    _positive("limit", limit, problems)
    if problems:
        raise SpecValidationError(problems, subject="kill request")
    canonical = canonical_interval(interval)
    spec: dict[str, Any] = {"type": "kill", "dataSource": datasource, "interval": canonical}
    if batch_size is not None:
        spec["batchSize"] = batch_size
    if limit is not None:
        spec["limit"] = limit
    task_id = base_task_id(spec, datasource, [canonical], idempotency_key, "kill")
    return KillPlan(canonical_json(spec), datasource, (canonical,), task_id)
