"""Fuzz: task status and bulk status, and what the waits do with them (task listings: ``test_fuzz_other``)."""

from __future__ import annotations

from typing import Any

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.api._models import TaskStatus
from druid_ingest.ops._outcomes import TaskOutcome
from druid_ingest.ops._shared_reads import merge_status
from druid_ingest.wire._http import Response

from .gen import lists, seeded, tuples
from .harness import fuzz, guarded
from .shapes import TASK_IDS, bulk_body, status_body
from .strategies import response

pytestmark = pytest.mark.fuzz


def use_status(status: TaskStatus) -> None:
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
            use_status(result)

    fuzz("status", seeded(tuples(response(status_body), TASK_IDS)), check)


def test_fuzz_bulk_status() -> None:
    def check(case: tuple[Response, list[str]]) -> None:
        resp, ids = case
        result: Any = guarded(lambda: ep.parse_bulk_status(resp, ep.bulk_status(ids)))
        if isinstance(result, dict):
            for status in result.values():
                use_status(status)

    fuzz("bulk_status", seeded(tuples(response(bulk_body, method="POST"), lists(TASK_IDS, 3, min_size=1))), check)
