"""The drop's pure pick of the markUnused API from the version ``/status`` reports, garbage versions included."""

from __future__ import annotations

import pytest
from druid_ingest.planning import build_drop_plan, druid_release, segment_write_api


@pytest.mark.parametrize(("version", "release"), [
    ("33.0.0", (33, 0, 0)), ("31.0.2", (31, 0, 2)), ("0.23.0", (0, 23, 0)), ("34.0.0-SNAPSHOT", (34, 0, 0)),
    ("33.0.0-iap", (33, 0, 0)), (" 35.0.1 ", (35, 0, 1)),
    ("", None), ("33", None), ("33.0", None), ("v33.0.0", None), ("latest", None), (None, None), (33, None),
])
def test_a_release_is_three_numbers_and_anything_else_is_unknown(version: object, release: object) -> None:
    assert druid_release(version) == release


@pytest.mark.parametrize(("version", "service", "path"), [
    ("31.0.2", "coordinator", "/druid/coordinator/v1/datasources/ds/markUnused"),
    ("0.23.0", "coordinator", "/druid/coordinator/v1/datasources/ds/markUnused"),
    ("32.0.0", "overlord", "/druid/indexer/v1/datasources/ds/markUnused"),
    ("33.0.0-SNAPSHOT", "overlord", "/druid/indexer/v1/datasources/ds/markUnused"),
    ("34.0.0", "overlord", "/druid/indexer/v1/datasources/ds/markUnused"),
    ("", "overlord", "/druid/indexer/v1/datasources/ds/markUnused"),
    ("33", "overlord", "/druid/indexer/v1/datasources/ds/markUnused"),
    (None, "overlord", "/druid/indexer/v1/datasources/ds/markUnused"),
])
def test_the_overlord_from_32_the_coordinator_before_and_the_overlord_when_unknown(
        version: str | None, service: str, path: str) -> None:
    request = build_drop_plan("ds", "2026-11-01/2026-11-02").write_request(segment_write_api(version))
    assert (request.method, request.service, request.path) == ("POST", service, path)
    assert request.json_body == {"interval": "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"}


def test_the_pick_says_which_api_and_why() -> None:
    where = "http://druid:8888"
    assert segment_write_api("31.0.2").describe("31.0.2", where, "marking unused") == (
        "Druid 31.0.2 at http://druid:8888: marking unused through the Coordinator's API (the Overlord's arrived "
        "in Druid 32)")
    assert segment_write_api("34.0.0").describe("34.0.0", where, "marking unused") == (
        "Druid 34.0.0 at http://druid:8888: marking unused through the Overlord's API (Druid 32 and later)")
    assert segment_write_api("").describe("", where, "marking unused") == (
        "Druid at http://druid:8888 reports version '', not a release number: marking unused through the "
        "Overlord's API (Druid 32 and later)")
