"""Regression tests for what the fuzz suite (tests/fuzz) and the chaos run (tests/chaos) found: each answer below
once escaped the error taxonomy (OverflowError, TypeError, KeyError, ValueError, UnicodeEncodeError) or was misread,
instead of being read or refused clearly."""

from __future__ import annotations

import json
import math

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.api._reports import parse_report
from druid_ingest.errors import DruidNotFoundError, DruidProtocolError, DruidRedirectError, SpecValidationError
from druid_ingest.planning._plan import build_plan
from druid_ingest.planning.spec import find_problems
from druid_ingest.testing import index_parallel_spec
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._http import Response, redirect_request_url

DAY = "2026-07-16T00:00:00.000Z/2026-07-17T00:00:00.000Z"


def _resp(body: object, status: int = 200) -> Response:
    raw = body if isinstance(body, bytes) else json.dumps(body, allow_nan=True).encode()
    return Response(status, raw, {"Content-Type": "application/json"}, "http://druid:8888/x")


def test_status_with_infinite_duration_and_odd_fields_reads_them_as_absent():
    body = {"task": "t1", "status": {"statusCode": "RUNNING", "duration": math.inf, "runnerStatusCode": 7,
                                     "createdTime": {"x": 1}, "location": {"host": "mm1", "tlsPort": {}, "port": 8100}}}
    status = ep.parse_status(_resp(body), ep.status("t1"))
    assert (status.duration_ms, status.runner_state, status.created_time) == (None, None, None)
    assert status.location == "mm1:8100"


def test_bulk_status_location_with_an_object_port():
    body = {"t1": {"status": "RUNNING", "location": {"host": "mm1", "tlsPort": {"a": 1}, "port": None}}}
    assert ep.parse_bulk_status(_resp(body), ep.bulk_status(["t1"]))["t1"].location == "mm1:None"


def test_workers_listing_skips_entries_that_are_not_objects():
    body = [[1], {"worker": {"host": "mm1", "capacity": "4"}, "currCapacityUsed": math.nan},
            {"worker": {"host": "mm2", "capacity": 3}, "currCapacityUsed": 1}]
    capacity = ep.parse_workers(_resp(body), ep.workers())
    assert (capacity.total_slots, capacity.used_slots, len(capacity.workers)) == (3, 1, 2)


def test_report_counts_that_are_not_finite_read_as_absent():
    body = {"ingestionStatsAndErrors": {"taskId": "t1", "payload": {
        "segmentsPublished": -math.inf, "rowStats": {"buildSegments": {"processed": math.nan}},
        "recordsProcessed": {"p0": math.inf, "p1": 5}}}}
    summary = parse_report(ep.parse_reports(_resp(body), ep.reports("t1")))
    assert summary is not None and summary.segments_published is None and summary.records_processed == 5
    assert summary.row_stats["buildSegments"]["processed"] == 0 and "processed=0" in summary.format()


@pytest.mark.parametrize(("segment", "field"), [
    ({"version": "v1"}, "interval"),
    ({"interval": ["2026-07-16", "2026-07-17"], "version": "v1"}, "interval"),
    ({"interval": "not-a-date/2026-07-17", "version": "v1"}, "interval"),
    ({"interval": "2026-07-16T00:00:00.000Z/P1D", "version": "v1"}, "interval"),  # Druid writes start/end only
    ({"interval": DAY, "version": 3}, "version"),
])
def test_used_segment_with_a_malformed_interval_or_version_is_a_protocol_error(segment, field):
    with pytest.raises(DruidProtocolError, match=f"segment {field} "):
        ep.parse_used_segments(_resp([{"dataSource": "wiki", **segment}]), ep.used_segments("wiki", [DAY]))


def test_used_segment_with_odd_shard_spec_and_size_reads_them_leniently():
    body = [{"interval": DAY, "version": "v1", "shardSpec": [None], "size": "12", "identifier": 5}]
    (segment,) = ep.parse_used_segments(_resp(body), ep.used_segments("wiki", [DAY]))
    assert (segment.partition_num, segment.size, segment.segment_id) == (0, 0, "")


def test_broker_candidate_sizes_of_another_type_and_bad_intervals():
    ok = [{"interval": DAY, "version": "v1", "locations": [{"host": "h"}], "size": [True], "partitionNumber": "2"}]
    (candidate,) = ep.parse_broker_candidates(_resp(ok), ep.broker_candidates("wiki", [DAY]))
    assert (candidate.size, candidate.partition_num) == (0, 0)
    bad = [{"interval": "\t{", "version": "v1", "locations": [{"host": "h"}]}]
    with pytest.raises(DruidProtocolError, match="Broker candidate interval"):
        ep.parse_broker_candidates(_resp(bad), ep.broker_candidates("wiki", [DAY]))


@pytest.mark.parametrize("location", ["http://[::1", "http://druid:99999/x", "http://leader:8081\u2028x",
                                      "javascript:alert(1)", "ftp://druid:21/x", "http://druid:8888/a b",
                                      "http://druid:8888\r\nX-Injected: 1"])
def test_redirect_to_a_location_that_is_not_an_http_url_is_refused(location):
    resp = Response(307, b"", {"Location": location}, "http://druid:8888/druid/indexer/v1/task", "POST")
    with pytest.raises(DruidRedirectError, match="Druid redirected to Location"):
        redirect_request_url(resp, ClusterConfig(url="http://druid:8888"), has_credentials=False)


def test_spec_values_of_unhashable_types_are_problems_not_type_errors():
    spec = index_parallel_spec("wiki", tuning={"forceGuaranteedRollup": True, "partitionsSpec": {"type": {}}})
    spec["spec"]["dataSchema"]["metricsSpec"] = [{"type": {"x": 1}, "name": "n"}]
    spec["spec"]["ioConfig"]["inputSource"]["type"] = ["inline"]
    paths = {p.path for p in find_problems(spec)}
    assert {"spec.tuningConfig.partitionsSpec.type", "spec.ioConfig.inputSource.type"} <= paths


@pytest.mark.parametrize("interval", ["2026-07-16/P9999999999D", "2026-07-16/PT" + "9" * 400 + "S",
                                      "P99999999Y/2026-07-16"])
def test_intervals_beyond_the_calendar_are_problems(interval):
    problems = find_problems(index_parallel_spec("wiki", [interval]))
    assert [str(p) for p in problems] == [
        f"spec.dataSchema.granularitySpec.intervals[0]: interval {interval!r} reaches beyond the years 1-9999; "
        "valid: <start>/<end>, <start>/<period> or <period>/<end>, e.g. 2026-01-01/P1D"]


@pytest.mark.parametrize(("where", "value", "message"), [
    ("context", {"x": math.nan}, "context.x: is nan, which is not a JSON number"),
    ("context", {"x": [1, math.inf]}, "context.x[1]: is inf, which is not a JSON number"),
    ("context", {"x": "a\ud800"}, "context.x: holds a lone surrogate U+D800 at position 1"),
    ("context", {"x": {1, 2}}, "context.x: is a set, which has no JSON form"),
    ("context", {3: "x"}, "context: has a key 3 of type int; JSON keys are strings"),
])
def test_specs_that_are_not_json_are_problems_before_any_hashing(where, value, message):
    spec = {**index_parallel_spec("wiki"), where: value}
    assert any(str(p).startswith(message) for p in find_problems(spec)), find_problems(spec)
    with pytest.raises(SpecValidationError, match="invalid Druid ingestion spec"):
        build_plan(spec)  # once: UnicodeEncodeError / ValueError from the task-id hash


def test_a_404_page_for_used_segments_is_a_missing_endpoint_not_an_empty_answer():
    """Found by the chaos run: a Jetty 404 page (wrong Coordinator URL) read as "no segments", so the gate waited
    until its timeout saying none of the task's segments were in the metadata store."""
    page = Response(404, b"<html><title>Error 404 Not Found</title></html>", {"Content-Type": "text/html"},
                    "http://druid:8888/x", "POST")
    with pytest.raises(DruidNotFoundError, match="not found: Error 404 Not Found"):
        ep.parse_used_segments(page, ep.used_segments("wiki", [DAY]))
    assert ep.parse_used_segments(Response(404, b"", {}, "http://druid:8888/x"), ep.used_segments("wiki", [DAY])) == []
    assert ep.parse_used_segments(Response(204, b"", {}, "http://druid:8888/x"), ep.used_segments("wiki", [DAY])) == []
