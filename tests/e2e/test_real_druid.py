"""Contracts that Druid decides, proven against a real Druid (dev/druid) through the core client."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.api._reports import parse_report
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DuplicateTaskIdError, UnknownTaskError
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning.spec import render_spec

from tests.days import day_interval
from tests.druid_sql import day_counts

pytestmark = pytest.mark.timeout(600)
POLL = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)


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


def _hourly_rollup_rows(events_file: Path) -> int:
    """COUNT(*) Druid must show with queryGranularity HOUR: distinct (hour, country, device, page_id)."""
    import json

    keys = set()
    for line in events_file.read_text().splitlines():
        row = json.loads(line)
        keys.add((row["event_ts"][:13], row["country"], row["device"], row["page_id"]))
    return len(keys)


def test_lock_ordered_replaces_b_waits_for_its_own_version_and_a_is_superseded(
    real, spec_template, events_dir, expected, tmp_path
):
    """C holds the day's lock; A then B (other specs) queue behind it. A locks when C ends, after B was created,
    so A's version is above B's createdTime: B's gate must wait for B's own version, and A's must say B replaced
    it. The versions and createdTimes are printed (run with -s to see them)."""
    ds, day = "e2e_lock_order", "2026-11-02"
    import subprocess
    import sys

    big = tmp_path / "big"
    subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / "dags/data/generate_events.py"),
                    "--out", str(big), "--start", day, "--days", "1", "--rows-per-day", "300000"],
                   check=True, capture_output=True)
    spec_c = render_spec(spec_template, datasource=ds, intervals=[day_interval(day)], input_locations=[str(big / day)])
    spec_a = build(spec_template, events_dir, day, ds)
    spec_b = copy.deepcopy(spec_a)
    spec_b["spec"]["dataSchema"]["granularitySpec"]["queryGranularity"] = "HOUR"
    ids = {}
    for name, spec in (("C", spec_c), ("A", spec_a), ("B", spec_b)):
        ids[name] = real.ensure_submitted(spec, idempotency_key=f"lock-order-{time.time()}").task_id
        time.sleep(1.0)
    fast = PollSchedule(initial=0.5, max_delay=0.5)
    statuses = {name: real.wait_for_task(task_id, timeout=600, schedule=fast) for name, task_id in ids.items()}
    assert all(s.state == "SUCCESS" for s in statuses.values()), statuses
    assert statuses["A"].version_ceiling and statuses["B"].version_ceiling  # each seen holding its lock

    target_b = real.handoff_target(ids["B"], ds, [day_interval(day)], version_ceiling=statuses["B"].version_ceiling)
    first_b = real.check_handoff(target_b)
    target_a = real.handoff_target(ids["A"], ds, [day_interval(day)], version_ceiling=statuses["A"].version_ceiling)
    result_b = real.wait_for_handoff(target_b, timeout=300, schedule=POLL)
    counts = day_counts(real, ds, day)  # at once: green means queryable
    result_a = real.wait_for_handoff(target_a, timeout=300, schedule=POLL)
    print(f"\nlock order on {ds} {day}:")
    for name in ("C", "A", "B"):
        print(f"  {name}: createdTime {statuses[name].created_time}  lock seen <= {statuses[name].version_ceiling}")
    print(f"  B first look: {first_b.state} ({first_b.detail})")
    print(f"  B: {result_b.state} version {result_b.version}; A: {result_a.state} by {result_a.superseded_by}")
    print(f"  SQL right after B's gate: {counts}")

    assert statuses["A"].version_ceiling > statuses["B"].created_time  # the case the old gate got wrong
    assert first_b.state == "pending", first_b  # B's version is not served yet right after SUCCESS
    assert result_b.state == "loaded" and result_b.version <= statuses["B"].version_ceiling
    assert result_b.version > statuses["A"].version_ceiling
    want = {"rows": expected[day]["rows"], "rollup_rows": _hourly_rollup_rows(events_dir / day / "events.json"),
            "sum_resp_bytes": expected[day]["sum_resp_bytes"]}
    assert counts == want  # B's rows (HOUR rollup), not A's (MINUTE) nor C's (300k rows)
    assert result_a.state == "superseded" and result_a.superseded_by == result_b.version


def test_an_empty_input_day_fails_with_druids_message_and_keeps_the_old_data(real, spec_template, events_dir,
                                                                              expected, tmp_path):
    """An input without rows: the sampler probe refuses the dropExisting replace before submitting (the day keeps
    its data). Submitted anyway (no probe), Druid 33 answers SUCCESS with errorMsg "No valid rows for range
    partitioning..." and publishes nothing: the handoff verdict must not call that a success either."""
    from druid_ingest.errors import DruidEmptyIngestionError, DruidEmptyInputError

    ds, day = "e2e_empty_day", "2026-11-03"
    ingest(real, build(spec_template, events_dir, day, ds))  # the day has data
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    (empty_dir / "events.json").write_text("")
    spec = render_spec(spec_template, datasource=ds, intervals=[day_interval(day)], input_locations=[str(empty_dir)])
    with pytest.raises(DruidEmptyInputError) as probed:
        real.ingest(spec, task_timeout=300, handoff_timeout=120, schedule=POLL)
    assert "nothing was submitted" in str(probed.value) and "allow_empty=True" in str(probed.value)
    assert day_counts(real, ds, day) == expected[day]
    submitted = real.ensure_submitted(spec, allow_empty=True)  # no probe: Druid decides
    assert real.wait_for_task(submitted.task_id, timeout=300, schedule=POLL).state == "SUCCESS"
    target = real.handoff_target(submitted.task_id, ds, [day_interval(day)])
    with pytest.raises(DruidEmptyIngestionError) as info:
        real.wait_for_handoff(target, timeout=120, schedule=POLL, allow_empty=False)
    text = str(info.value)
    assert "No valid rows for range partitioning" in text and "allow_empty=True" in text
    assert day_counts(real, ds, day) == expected[day]  # nothing was replaced
    result = real.ingest(spec, task_timeout=300, handoff_timeout=120, schedule=POLL, allow_empty=True)
    assert result.submit.action == "adopted" and result.handoff.state == "nothing"
