"""Fuzz: the remaining response parsers (submit, task payload, task listings, workers, locks, leader, health,
handoffComplete, SQL, shutdown), each on bodies of its own shape and on any JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.api._models import ClusterCapacity, Segment
from druid_ingest.ops._capacity import slots_finding
from druid_ingest.ops._history import DurationHistory, ingestion_durations
from druid_ingest.ops.gate.verdict import version_key
from druid_ingest.wire._http import Request, Response

from .gen import G, any_json, just, lists, obj, one_of, sampled, seeded, tuples
from .harness import fuzz, guarded
from .shapes import TASK_IDS, active_locks_body, tasks_body, workers_body
from .strategies import response
from .test_fuzz_status import use_status

pytestmark = pytest.mark.fuzz


def _capacity(found: Any) -> None:
    if isinstance(found, ClusterCapacity):
        assert found.free_slots >= 0
        slots_finding(4, found)


def _tasks(found: Any) -> None:
    if isinstance(found, list):
        for status in found:
            use_status(status)
        DurationHistory.of(ingestion_durations(found))


def _locks(found: Any) -> None:
    if isinstance(found, list) and found:
        max((lock.version for lock in found), key=version_key)


_SEG = Segment("s", "2026-07-16T00:00:00.000Z/2026-07-17T00:00:00.000Z", "v", 0)
#: parser, its request, a body of its own shape, and a check on the parsed value
_PARSERS: list[tuple[Callable[[Response, Request], Any], Request, G, Callable[[Any], None]]] = [
    (ep.parse_submit, ep.submit({"type": "index"}), obj({"task": TASK_IDS}), lambda v: None),
    (ep.parse_task_payload, ep.task_payload("t1"), obj({"task": TASK_IDS, "payload": any_json}), lambda v: None),
    (ep.parse_tasks, ep.tasks("complete", "wiki"), tasks_body, _tasks),
    (ep.parse_workers, ep.workers(), workers_body, _capacity),
    (ep.parse_active_locks, ep.active_locks("wiki"), active_locks_body, _locks),
    (ep.parse_is_leader, ep.is_leader(), obj({"leader": sampled([True, False])}), lambda v: None),
    (ep.parse_health, ep.health(), sampled([True, False]), lambda v: None),
    (ep.parse_handoff_complete, ep.handoff_complete("wiki", _SEG), sampled([True, False]), lambda v: None),
    (ep.parse_sql, ep.sql("SELECT 1"), lists(obj({"c": any_json}), 2), lambda v: None),
    (ep.parse_data_servers, ep.data_servers(),
     lists(obj({"host": any_json, "type": sampled(["historical", "indexer-executor"]), "currSize": any_json,
                "maxSize": any_json}), 3), lambda v: None),
    (ep.parse_shutdown, ep.shutdown("t1"), obj({"task": TASK_IDS}), lambda v: None),
]


_CASES = one_of(*(tuples(just(i), response(one_of(shape, shape, any_json), method=req.method))
                   for i, (_p, req, shape, _u) in enumerate(_PARSERS)))


def test_fuzz_other_endpoints() -> None:
    def check(case: tuple[int, Response]) -> None:
        parse, req, _shape, use = _PARSERS[case[0]]
        use(guarded(lambda: parse(case[1], req)))

    fuzz("other_endpoints", seeded(_CASES), check)


def _locks_or_error(parse: Callable[[Response, Request], Any], resp: Response) -> Any:
    try:
        return [(lock.group_id, lock.datasource, lock.interval, lock.version, lock.lock_type, lock.revoked,
                 lock.priority) for lock in parse(resp, ep.active_locks("wiki"))]
    except Exception as exc:  # the same error class either way
        return type(exc).__name__


def test_fuzz_active_locks_read_lock_by_lock_agree_with_the_whole_answer() -> None:
    """``parse_active_locks_among`` (a herd's ceilings, read one lock at a time) finds what ``parse_active_locks``
    finds among the same groups, or fails as it does, on any body."""
    groups = {"t1", "ingest_wiki_20260716_0123456789abcdef"}

    def check(resp: Response) -> None:
        whole = _locks_or_error(ep.parse_active_locks, resp)
        if isinstance(whole, list):
            whole = [lock for lock in whole if lock[0] in groups]
        assert _locks_or_error(ep.parse_active_locks_among(groups), resp) == whole

    fuzz("active_locks_among", seeded(response(one_of(active_locks_body, active_locks_body, any_json),
                                               method="POST")), check)
