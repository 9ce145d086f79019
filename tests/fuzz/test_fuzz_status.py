"""Fuzz: task status, bulk status and task listings, and what the waits do with them."""

from __future__ import annotations

from typing import Any

import pytest

from airflow_provider_druid_ingest.core import endpoints as ep
from airflow_provider_druid_ingest.core.history import DurationHistory, ingestion_durations
from airflow_provider_druid_ingest.core.http import Response
from airflow_provider_druid_ingest.core.models import TaskStatus
from airflow_provider_druid_ingest.core.outcomes import TaskOutcome
from airflow_provider_druid_ingest.core.shared import merge_status

from .gen import lists, seeded, tuples
from .harness import fuzz, guarded
from .shapes import TASK_IDS, bulk_body, status_body, tasks_body
from .strategies import response

pytestmark = pytest.mark.fuzz


def _use(status: TaskStatus) -> None:
    """What a wait does with a status: phase, terminal outcome message, merge with a bulk answer, serialize."""
    assert isinstance(status.state, str) and isinstance(status.task_id, str)
    status.phase  # noqa: B018
    status.to_dict()
    merge_status(status, status)
    if status.is_terminal:
        TaskOutcome.terminal(status, None).to_dict()


def test_fuzz_status() -> None:
    def check(case: tuple[Response, str]) -> None:
        resp, task_id = case
        result = guarded(lambda: ep.parse_status(resp, ep.status(task_id)))
        if isinstance(result, TaskStatus):
            _use(result)

    fuzz("status", seeded(tuples(response(status_body), TASK_IDS)), check)


def test_fuzz_bulk_status() -> None:
    def check(case: tuple[Response, list[str]]) -> None:
        resp, ids = case
        result: Any = guarded(lambda: ep.parse_bulk_status(resp, ep.bulk_status(ids)))
        if isinstance(result, dict):
            for status in result.values():
                _use(status)

    fuzz("bulk_status", seeded(tuples(response(bulk_body, method="POST"), lists(TASK_IDS, 3, min_size=1))), check)


def test_fuzz_task_list() -> None:
    def check(resp: Response) -> None:
        result: Any = guarded(lambda: ep.parse_tasks(resp, ep.tasks("complete", "wiki")))
        if isinstance(result, list):
            for status in result:
                _use(status)
            DurationHistory.of(ingestion_durations(result))

    fuzz("task_list", seeded(response(tasks_body)), check)
