"""Deterministic ids: stable across processes, Druid-valid, sensitive to content and key."""

from __future__ import annotations

import subprocess
import sys

import pytest
from druid_ingest.planning._ids import attempt_id, base_task_id, invalid_task_id_reason, spec_fingerprint, split_attempt

SPEC = {"type": "index_parallel", "spec": {"dataSchema": {"dataSource": "events_web"}, "b": [1, 2.5, None]}}
DAY = ["2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"]


def test_same_content_any_key_order_same_id() -> None:
    reordered = {"spec": {"b": [1, 2.5, None], "dataSchema": {"dataSource": "events_web"}}, "type": "index_parallel"}
    assert base_task_id(SPEC, "events_web", DAY) == base_task_id(reordered, "events_web", DAY)


def test_id_ignores_pinned_id_field() -> None:
    assert spec_fingerprint({**SPEC, "id": "whatever"}) == spec_fingerprint(SPEC)


def test_stable_across_processes() -> None:
    code = (
        "from druid_ingest.planning._ids import base_task_id;"
        f"print(base_task_id({SPEC!r}, 'events_web', {DAY!r}))"
    )
    out = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
           for _ in range(2)}
    assert out == {base_task_id(SPEC, "events_web", DAY)}


def test_content_key_and_interval_change_the_id() -> None:
    base = base_task_id(SPEC, "events_web", DAY)
    changed = {**SPEC, "spec": {**SPEC["spec"], "b": [1]}}
    assert base_task_id(changed, "events_web", DAY) != base
    assert base_task_id(SPEC, "events_web", DAY, key="fix-1") != base
    assert base_task_id(SPEC, "events_web", ["2026-11-02/2026-11-03"]) != base


def test_readable_shape() -> None:
    task_id = base_task_id(SPEC, "events_web", DAY)
    assert task_id.startswith("ingest_events_web_20261101-20261102_")


@pytest.mark.parametrize(
    "datasource",
    ["events/web", ".hidden", "tab\there", "new\nline", "x" * 400, "ünïcødé ds", "emoji\U0001F600", "a b"],
)
def test_ids_are_always_valid_for_druid(datasource: str) -> None:
    task_id = base_task_id(SPEC, datasource, DAY * 3)
    assert invalid_task_id_reason(task_id) is None
    assert invalid_task_id_reason(attempt_id(task_id, 99)) is None
    assert len(attempt_id(task_id, 99)) <= 200


def test_attempt_ids_round_trip() -> None:
    assert attempt_id("b", 0) == "b"
    assert split_attempt(attempt_id("b_x", 3)) == ("b_x", 3)
    assert split_attempt("b_x") == ("b_x", 0)


@pytest.mark.parametrize(
    ("task_id", "fragment"),
    [("", "empty"), (".x", "'.'"), ("a/b", "'/'"), ("a\tb", "whitespace"), ("a\x01", "U+0001"), ("x" * 201, "200")],
)
def test_invalid_ids_are_explained(task_id: str, fragment: str) -> None:
    reason = invalid_task_id_reason(task_id)
    assert reason is not None and fragment in reason


@pytest.mark.parametrize(
    ("char", "druid_accepts"),
    [("\u001f", True), ("\u001e", False), ("\u009f", True), ("\u009e", False), ("\uf8ff", True), ("\uf8fe", False),
     ("\ufff0", True), ("\ufff1", False), ("\uffff", True), ("\U0001F600", False)],
)
def test_one_validator_agrees_with_the_fake_druid_on_the_range_bounds(char: str, druid_accepts: bool) -> None:
    """Druid's ranges are open intervals: the bounds pass. The package's validator (ids, spec validation) and the
    fake Druid's IdUtils stand-in must give the same answer."""
    from druid_ingest.planning._ids import druid_id_problem
    from druid_ingest.planning.spec import find_problems
    from druid_ingest.testing.fake_tasks import InvalidInputError, validate_id

    value = f"ds{char}x"
    assert (druid_id_problem(value) is None) is druid_accepts
    try:
        validate_id("dataSource", value)
        fake_accepts = True
    except InvalidInputError:
        fake_accepts = False
    assert fake_accepts is druid_accepts
    spec = {**SPEC, "spec": {**SPEC["spec"], "dataSchema": {**SPEC["spec"]["dataSchema"], "dataSource": value}}}
    assert any(p.path == "spec.dataSchema.dataSource" for p in find_problems(spec)) is not druid_accepts


def test_a_lone_surrogate_is_refused_because_it_cannot_be_sent() -> None:
    from druid_ingest.planning._ids import druid_id_problem

    assert "surrogate" in (druid_id_problem("ds\ud800x") or "")
