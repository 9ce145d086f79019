"""Contracts that Druid decides, proven against a real Druid (dev/druid) through the core client."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest

from airflow_provider_druid_ingest.core import DruidClient, PollSchedule
from airflow_provider_druid_ingest.core.errors import DuplicateTaskIdError, UnknownTaskError
from airflow_provider_druid_ingest.core.reports import parse_report
from airflow_provider_druid_ingest.core.spec import render_spec

pytestmark = pytest.mark.timeout(600)
POLL = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)


def day_interval(day: str) -> str:
    nxt = time.strftime("%Y-%m-%d", time.gmtime(time.mktime(time.strptime(day, "%Y-%m-%d")) + 86400 + 3600))
    return f"{day}T00:00:00Z/{nxt}T00:00:00Z"


def build(template: dict[str, Any], events: Path, day: str, datasource: str) -> dict[str, Any]:
    return render_spec(template, datasource=datasource, intervals=[day_interval(day)],
                       input_locations=[str(events / day)])


def ingest(client: DruidClient, spec: dict[str, Any], **kw: Any):
    outcome = client.ensure_submitted(spec, **kw)
    status = client.wait_for_task(outcome.task_id, timeout=300, schedule=POLL)
    assert status.state == "SUCCESS", status
    facts_intervals = spec["spec"]["dataSchema"]["granularitySpec"]["intervals"]
    target = client.handoff_target(outcome.task_id, spec["spec"]["dataSchema"]["dataSource"], facts_intervals)
    first = client.check_handoff(target)
    result = client.wait_for_handoff(target, timeout=300, schedule=POLL)
    return outcome, status, first, result


def day_counts(client: DruidClient, datasource: str, day: str) -> dict[str, Any]:
    rows = client.sql(
        f'SELECT COUNT(*) AS "rollup_rows", SUM("rows") AS "rows", SUM("bytes") AS "sum_resp_bytes" '
        f"FROM \"{datasource}\" WHERE __time >= TIMESTAMP '{day} 00:00:00' "
        f"AND __time < TIMESTAMP '{day} 00:00:00' + INTERVAL '1' DAY"
    )
    return rows[0]


def visible_versions(client: DruidClient, datasource: str, day: str) -> set[str]:
    rows = client.sql(
        "SELECT DISTINCT \"version\" FROM sys.segments WHERE datasource = ? AND is_overshadowed = 0 "
        "AND is_published = 1 AND \"start\" >= ? AND \"start\" < ?",
        [{"type": "VARCHAR", "value": datasource}, {"type": "VARCHAR", "value": f"{day}T00:00:00.000Z"},
         {"type": "VARCHAR", "value": f"{day}T23:59:59.999Z"}],
    )
    return {r["version"] for r in rows}


def wait_sql(client: DruidClient, datasource: str, day: str, want: Any, timeout: float = 60) -> dict:
    """The Broker's view can trail the Coordinator's inventory by a moment; poll briefly.

    ``want`` is the expected counts dict, or a predicate on the counts.
    """
    done = want if callable(want) else (lambda got: got == want)
    deadline = time.monotonic() + timeout
    while True:
        got = day_counts(client, datasource, day)
        if done(got) or time.monotonic() > deadline:
            return got
        time.sleep(1)


def test_rows_and_rollup_match_generator_then_replace_keeps_one_version(real, spec_template, events_dir, expected):
    ds, day = "e2e_events", "2026-11-02"
    spec = build(spec_template, events_dir, day, ds)
    outcome, _status, _first, result = ingest(real, spec)
    assert outcome.action == "submitted" and result.state == "loaded", result
    want = expected[day]
    assert day_counts(real, ds, day) == want  # green means queryable: no waiting after the gate

    # Re-running the same interval (forced: same spec, new key) replaces it: one visible version, same counts.
    again, _, first_again, result_again = ingest(real, spec, idempotency_key="e2e-rerun")
    assert again.task_id != outcome.task_id and result_again.state == "loaded"
    assert result_again.version > result.version
    assert first_again.state in ("pending", "loaded")
    assert visible_versions(real, ds, day) == {result_again.version}
    assert day_counts(real, ds, day) == want

    # A re-run of the unchanged spec adopts the succeeded task: no new ingestion.
    adopted = real.ensure_submitted(spec, idempotency_key="e2e-rerun")
    assert (adopted.task_id, adopted.action) == (again.task_id, "adopted")


def test_changed_spec_replaces(real, spec_template, events_dir, expected):
    ds, day = "e2e_changed", "2026-11-03"
    spec = build(spec_template, events_dir, day, ds)
    ingest(real, spec)
    coarser = copy.deepcopy(spec)
    coarser["spec"]["dataSchema"]["granularitySpec"]["queryGranularity"] = "HOUR"
    outcome, _, _, result = ingest(real, coarser)
    assert result.state == "loaded" and outcome.action == "submitted"
    got = wait_sql(real, ds, day, lambda g: g["rollup_rows"] < expected[day]["rollup_rows"])
    assert got["rows"] == expected[day]["rows"]
    assert got["rollup_rows"] < expected[day]["rollup_rows"]
    assert visible_versions(real, ds, day) == {result.version}


def test_pinned_duplicate_gets_real_400_and_is_adopted(real, spec_template, events_dir):
    spec = build(spec_template, events_dir, "2026-11-04", "e2e_dup")
    outcome = real.ensure_submitted(spec)
    with pytest.raises(DuplicateTaskIdError) as info:
        real.submit({**spec, "id": outcome.task_id})
    assert info.value.status == 400 and info.value.task_id == outcome.task_id
    assert real.ensure_submitted(spec).action == "adopted"
    real.wait_for_task(outcome.task_id, timeout=300, schedule=POLL)


def test_failed_task_report_summary(real, spec_template, events_dir):
    spec = build(spec_template, events_dir, "2026-11-05", "e2e_failed")
    spec["spec"]["dataSchema"]["timestampSpec"] = {"column": "no_such_column", "format": "iso"}
    # Sequential, dynamic partitioning: Druid 33 writes no report for a FAILED range-partitioned task.
    spec["spec"]["tuningConfig"] = {"type": "index_parallel", "maxNumConcurrentSubTasks": 1,
                                    "partitionsSpec": {"type": "dynamic"}, "maxParseExceptions": 0,
                                    "maxSavedParseExceptions": 5}
    outcome = real.ensure_submitted(spec)
    status = real.wait_for_task(outcome.task_id, timeout=300, schedule=POLL)
    assert status.state == "FAILED"
    summary = parse_report(real.report(outcome.task_id))
    assert summary is not None and summary.error_msg
    text = summary.format()
    assert "rror" in text
    retry = real.ensure_submitted(spec)
    assert retry.task_id == outcome.task_id + "_r1" and retry.action == "submitted"
    assert real.wait_for_task(retry.task_id, timeout=300, schedule=POLL).state == "FAILED"


def test_handoff_gate_not_yet_then_loaded(real, spec_template, events_dir):
    """Right after SUCCESS the Historical has not loaded the new version yet (coordinator period ≥ 1 s)."""
    ds, day = "e2e_gate", "2026-11-01"
    spec = build(spec_template, events_dir, day, ds)
    ingest(real, spec)  # an old version exists and is loaded
    spec2 = copy.deepcopy(spec)
    outcome = real.ensure_submitted(spec2, idempotency_key="gate-2")
    status = real.wait_for_task(outcome.task_id, timeout=300, schedule=PollSchedule(initial=0.2, max_delay=0.2))
    assert status.state == "SUCCESS"
    target = real.handoff_target(outcome.task_id, ds, spec2["spec"]["dataSchema"]["granularitySpec"]["intervals"])
    first = real.check_handoff(target)
    assert first.state == "pending", first
    result = real.wait_for_handoff(target, timeout=300, schedule=POLL)
    assert result.state == "loaded" and result.served == result.expected


def test_shutdown_stops_running_task(real, spec_template, events_dir):
    spec = build(spec_template, events_dir, "2026-11-01", "e2e_shutdown")
    outcome = real.ensure_submitted(spec)
    real.shutdown(outcome.task_id)
    status = real.wait_for_task(outcome.task_id, timeout=120, schedule=POLL)
    assert status.state == "FAILED" and "Shutdown" in (status.error_msg or "")
    with pytest.raises(UnknownTaskError):
        real.status("e2e_no_such_task")
