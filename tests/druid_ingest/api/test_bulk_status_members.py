"""The bulk status answer read one task at a time (``json_members``): the same statuses as the whole body parsed
at once, the same errors for a body that is not a JSON object; read as rows, the same statuses again, untracked."""

from __future__ import annotations

import gc
import json

import pytest
from druid_ingest.api import TaskStatus
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidProtocolError
from druid_ingest.wire import Response

REQ = ep.bulk_status(["a", "b"])


def answer(body: bytes) -> Response:
    return Response(200, body, {"Content-Type": "application/json"}, "http://d/druid/indexer/v1/taskStatus", "POST")


@pytest.mark.parametrize("body", [
    b"{}", b" { } ", b'{"a": {"status": "RUNNING", "location": {"host": "mm", "port": 8100, "tlsPort": -1}}}',
    b'{ "a" : {"status":"SUCCESS","duration":12} , "b":{"status":"FAILED","errorMsg":"x"} }\n',
    b'{"a": {"status": "RUNNING"}, "a": {"status": "SUCCESS"}}', b'{"a": null, "b": {"status": "RUNNING"}}',
    b'\xef\xbb\xbf{"a": {"status": "RUNNING"}}', '{"\u00e9": {"status": "RUNNING"}}'.encode(),
])
def test_the_members_read_one_by_one_give_what_the_whole_body_gives(body: bytes) -> None:
    whole = json.loads(body.decode("utf-8-sig"))
    expected = {tid: ep.parse_bulk_status(answer(json.dumps({tid: b}).encode()), REQ)[tid]
                for tid, b in whole.items() if isinstance(b, dict)}
    assert ep.parse_bulk_status(answer(body), REQ) == expected


@pytest.mark.parametrize("body", [b"[1]", b"1", b"null", b'"a"', b'{"a": {"status": "RUNNING"},}', b'{"a" 1}',
                                  b'{"a": {"status": "RUNNING"}} x', b'{1: 2}', b'{"a": {"status": "RUNNING"}', b""])
def test_a_body_that_is_no_json_object_is_a_protocol_error(body: bytes) -> None:
    with pytest.raises(DruidProtocolError):
        ep.parse_bulk_status(answer(body), REQ)


def test_a_bulk_answer_read_as_rows_is_the_same_statuses_and_nothing_the_collector_tracks() -> None:
    body = (b'{"a": {"status": "RUNNING", "location": {"host": "mm", "port": 8100, "tlsPort": -1}, "dataSource": "ds",'
            b' "type": "index_parallel", "createdTime": "2026-11-01T00:00:00.000Z", "duration": -1},'
            b' "b": {"status": "FAILED", "errorMsg": "boom", "duration": 1200, "groupId": "b"}}')
    rows = ep.parse_bulk_rows(answer(body), REQ)
    assert {tid: TaskStatus(*row) for tid, row in rows.items()} == ep.parse_bulk_status(answer(body), REQ)
    assert rows["b"] == ("b", "FAILED", None, None, 1200, "boom", None, None, None, None, "b")
    gc.collect()
    # a bulk answer is held across a triggerer's tick; rows are no objects a young collection promotes
    assert [gc.is_tracked(row) for row in rows.values()] == [False, False]
    assert gc.is_tracked(TaskStatus(*rows["a"]))  # what it would have held: tracked for life
