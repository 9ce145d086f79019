"""The bulk status answer read one task at a time (``json_members``): the same statuses as the whole body parsed
at once, the same errors for a body that is not a JSON object."""

from __future__ import annotations

import json

import pytest
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
