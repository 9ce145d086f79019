"""A herd's ``activeLocks`` answer read one lock at a time (``parse_active_locks_among``): the same locks as the
whole-answer parser among the wanted groups, on the shapes Druid sends and on the odd ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidProtocolError
from druid_ingest.wire._http import Response


def _lock(group: str, ds: str = "wiki", version: str = "2026-01-01T00:00:00.000Z", **extra: Any) -> dict[str, Any]:
    return {"groupId": group, "dataSource": ds, "interval": "2026-01-01/2026-01-02", "version": version,
            "type": "EXCLUSIVE", "priority": 50, "revoked": False, **extra}


def _resp(body: str | bytes, status: int = 200) -> Response:
    raw = body.encode() if isinstance(body, str) else body
    return Response(status, raw, {"Content-Type": "application/json"}, "http://druid:8888/x", "POST")


REQ = ep.active_locks_of(["wiki", "other"])


@pytest.mark.parametrize("body", [
    {"datasourceToLocks": {"wiki": [_lock("a"), _lock("b", version="v2")], "other": [_lock("a", "other")]}},
    {"datasourceToLocks": {}},
    {"before": [1, {"x": "}"}], "datasourceToLocks": {"wiki": []}, "after": "]"},
    {"datasourceToLocks": {"wiki": None, "other": [None, 3, {"groupId": "a"}, _lock("a", "other")]}},
    {"datasourceToLocks": {"wiki": [_lock("c"), _lock("a", revoked=True)]}},
])
def test_the_wanted_groups_locks_as_the_whole_answer_gives_them(body: dict[str, Any]) -> None:
    for text in (json.dumps(body), json.dumps(body, indent=2)):
        whole = [lock for lock in ep.parse_active_locks(_resp(text), REQ) if lock.group_id in {"a", "b"}]
        assert ep.parse_active_locks_among({"a", "b"})(_resp(text), REQ) == whole


@pytest.mark.parametrize("text", ['{"x": 1}', "[]", '{"datasourceToLocks": []}', "not json", '{"datasourceToLocks": {'])
def test_an_answer_without_locks_fails_as_the_whole_parser_fails(text: str) -> None:
    with pytest.raises(DruidProtocolError):
        ep.parse_active_locks(_resp(text), REQ)
    with pytest.raises(DruidProtocolError):
        ep.parse_active_locks_among({"a"})(_resp(text), REQ)


def test_a_key_twice_is_read_as_the_whole_parser_reads_it() -> None:
    first, last = json.dumps(_lock("a", version="first")), json.dumps(_lock("a", version="last"))
    text = f'{{"datasourceToLocks": {{"wiki": [{first}]}}, "datasourceToLocks": {{"wiki": [{last}]}}}}'
    assert [lock.version for lock in ep.parse_active_locks_among({"a"})(_resp(text), REQ)] == ["last"]
