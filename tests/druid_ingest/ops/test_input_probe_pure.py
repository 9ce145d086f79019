"""The probe's pure parts: the sampler request and answer (druid-contract §sampler) and how an input is named."""

from __future__ import annotations

import json

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.api._models import InputSample
from druid_ingest.errors import DruidProtocolError, DruidValidationError
from druid_ingest.ops._input_probe import (
    PROBE_TIMEOUT_MS,
    describe_input,
    empty_input_error,
    probe_request,
    wants_probe,
)
from druid_ingest.planning._plan import build_plan
from druid_ingest.wire._http import Response

from tests.druid_ingest.sample_specs import day_spec


def answer(status: int, body: object) -> Response:
    return Response(status, json.dumps(body).encode(), {"Content-Type": "application/json"}, "http://d/x", "POST")


def test_sampler_answer_counts_and_first_parse_error() -> None:
    req = ep.sampler({}, {"type": "inline", "data": "x"}, {"type": "json"}, 5, 1000)
    sample = ep.parse_sampler(answer(200, {"numRowsRead": 3, "numRowsIndexed": 1, "data": [
        {"input": {}, "parsed": {}},
        {"input": {}, "unparseable": True, "error": "Timestamp[null] is unparseable!"},
        {"unparseable": True, "error": "second"},
    ]}), req)
    assert (sample.rows_read, sample.rows_indexed, sample.unparseable) == (3, 1, 2)
    assert sample.first_error == "Timestamp[null] is unparseable!"


@pytest.mark.parametrize("body", [{"data": []}, [], {"numRowsRead": "many"}])
def test_sampler_answer_without_a_count_is_a_protocol_error(body: object) -> None:
    req = ep.sampler({}, {"type": "local"}, None, 5, 1000)
    with pytest.raises(DruidProtocolError, match="numRowsRead"):
        ep.parse_sampler(answer(200, body), req)


def test_sampler_400_is_druids_own_words() -> None:
    req = ep.sampler({}, {"type": "s3"}, None, 5, 1000)
    with pytest.raises(DruidValidationError, match="Could not resolve type id 's3'"):
        ep.parse_sampler(answer(400, {"error": "Could not resolve type id 's3'"}), req)


@pytest.mark.parametrize("rows", [0, 5001])
def test_sampler_rows_outside_druids_limit_are_refused_before_sending(rows: int) -> None:
    with pytest.raises(ValueError, match="num_rows"):
        ep.sampler({}, {"type": "local"}, None, rows, 1000)


def test_the_request_is_the_index_shape_and_bounded() -> None:
    plan = build_plan(day_spec(dynamic=True))
    req = probe_request(plan)
    assert req is not None and req.path == "/druid/indexer/v1/sampler" and req.service == "overlord"
    assert req.read_timeout is not None and req.read_timeout > req.json_body["samplerConfig"]["timeoutMs"] / 1000
    assert "appendToExisting" not in req.json_body["spec"]["ioConfig"]  # IndexIOConfig would take it; not needed


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ({"type": "local", "baseDir": "/d/2026-11-01", "filter": "*.json"},
         "local input source baseDir=/d/2026-11-01 filter=*.json"),
        ({"type": "s3", "prefixes": ["s3://b/a/", "s3://b/c/"], "properties": {"secretAccessKey": "S3CR3T"}},
         "s3 input source prefixes=[s3://b/a/, s3://b/c/]"),
        ({"type": "s3", "objects": [{"bucket": "b", "path": "k.json"}]}, "s3 input source objects=[b/k.json]"),
        ({"type": "http", "uris": [f"http://h/{i}" for i in range(5)], "httpAuthenticationPassword": "PASSW0RD"},
         "http input source uris=[http://h/0, http://h/1, http://h/2, ... (5 in all)]"),
        ({"type": "inline", "data": "abc"}, "inline input source (3 characters of data)"),
        ({"type": "combining", "delegates": [{"type": "local", "files": ["/a"]}, {"type": "http", "uris": ["u"]}]},
         "combining input source of (local input source files=[/a]; http input source uris=[u])"),
        ({"type": "druid"}, "druid input source (no location given)"),
    ],
)
def test_an_input_is_named_by_type_and_location_never_by_secret(source: dict, named: str) -> None:
    text = describe_input(source)
    assert text == named
    assert "S3CR3T" not in text and "PASSW0RD" not in text


def test_only_a_dropexisting_native_replace_is_probed() -> None:
    assert wants_probe(build_plan(day_spec(dynamic=True)), allow_empty=False)
    assert not wants_probe(build_plan(day_spec(dynamic=True)), allow_empty=True)
    assert not wants_probe(build_plan(day_spec(dynamic=True, appendToExisting=True, dropExisting=False)), False)
    assert not wants_probe(build_plan(day_spec(dynamic=True, dropExisting=False)), False)


def test_an_answer_that_spent_the_budget_is_called_slow_not_empty() -> None:
    """From 90 % of the sampler's ``timeoutMs`` on, no row means "may be slow": still refused, worded so."""
    plan = build_plan(day_spec(dropExisting=True))
    boundary = PROBE_TIMEOUT_MS / 1000 * 0.9
    for seconds, slow in ((boundary, True), (boundary - 0.01, False), (0.0, False)):
        text = str(empty_input_error(plan, InputSample(0, 0, seconds=seconds)))
        assert ("may be slow to deliver its first row rather than empty" in text) is slow, (seconds, text)
        assert ("the input of this dropExisting replace is empty" in text) is not slow
        assert "nothing was submitted" in text and "allow_empty=True" in text


def test_the_empty_input_error_names_the_input_and_intervals_it_carries() -> None:
    plan = build_plan(day_spec(dropExisting=True))
    error = empty_input_error(plan)
    assert error.source == describe_input(plan.spec["spec"]["ioConfig"]["inputSource"])
    assert error.intervals == plan.intervals
    text = str(error)
    assert f"Replacing {', '.join(plan.intervals)} of 'events_web'" in text
    assert "Fix the input (path, filter, upstream job) and run again, or pass allow_empty=True" in text


def test_without_a_filter_of_its_own_the_probe_filters_on_the_interval_alone() -> None:
    """No ``and`` around a missing filter: Druid's ``and`` filter refuses a null field."""
    plan = build_plan(day_spec(dropExisting=True))
    assert "transformSpec" not in plan.spec["spec"]["dataSchema"]
    request = probe_request(plan)
    assert request is not None
    assert request.json_body["spec"]["dataSchema"]["transformSpec"] == {
        "filter": {"type": "interval", "dimension": "__time", "intervals": list(plan.intervals)}}
