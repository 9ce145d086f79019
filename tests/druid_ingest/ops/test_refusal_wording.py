"""The words of the refusals that stop a submit (failed-attempt evidence, an unprobeable input), pinned: what a
user reads to decide the next step, so a dropped clause or a wrong interval is a defect (each case below killed a
surviving mutant of ``scripts/mutation.sh``)."""

from __future__ import annotations

import pytest
from druid_ingest.api import ReportSummary, TaskStatus
from druid_ingest.ops._evidence import count_sql, next_attempt_line
from druid_ingest.ops._input_probe import describe_input, probe_refused
from druid_ingest.planning import build_plan
from druid_ingest.wire import (
    DruidAuthError,
    DruidError,
    DruidInputProbeError,
    DruidInputProbeRefusedError,
    DruidMayHavePublishedError,
    DruidRetriesExhaustedError,
)

from tests.druid_ingest.sample_specs import day_spec


def _append(**metrics: str):
    spec = day_spec(appendToExisting=True, dropExisting=False, dynamic=True)
    spec["spec"]["dataSchema"]["metricsSpec"] = [{"type": t, "name": n, **({"fieldName": "b"} if t != "count" else {})}
                                                 for n, t in metrics.items()]
    spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = ["2026-11-01T00:00:00.250+01:00/2026-11-01T12:00:00Z",
                                                                  "2026-11-02/2026-11-03"]
    return build_plan(spec, allow_unaligned=True)


def test_count_sql_reads_every_interval_in_utc_and_sums_the_count_metrics() -> None:
    plan = _append(row_count="count", ev_2="count", bytes="longSum", **{"bad name": "count"})
    assert count_sql(plan) == (
        'SELECT COUNT(*) AS "stored_rows", SUM("row_count") AS "sum_row_count", SUM("ev_2") AS "sum_ev_2" '
        'FROM "events_web" WHERE (__time >= TIMESTAMP \'2026-10-31 23:00:00.250\' AND __time < TIMESTAMP '
        "'2026-11-01 12:00:00.000') OR (__time >= TIMESTAMP '2026-11-02 00:00:00.000' AND __time < TIMESTAMP "
        "'2026-11-03 00:00:00.000')")


def test_the_may_have_published_refusal_says_what_druid_said_and_the_ways_on() -> None:
    plan = _append(rows="count")
    failed = TaskStatus("t1", "FAILED")
    with pytest.raises(DruidMayHavePublishedError) as no_report:
        next_attempt_line(plan, failed, "t1_r1", None)
    assert str(no_report.value).startswith(
        "Druid task t1 ended FAILED (no errorMsg); Druid has no report for it (its worker may have died before "
        "writing one), so it cannot tell, and it may have published")
    assert str(no_report.value).endswith(
        "If the rows are there, the work is done; if not, run again with a new idempotency key, or with "
        "after_failed_publish='resubmit' to submit the next attempt")
    with pytest.raises(DruidMayHavePublishedError) as unknown:
        next_attempt_line(plan, failed, "t1_r1", ReportSummary(segments_published=3))
    assert "; its report says state=unknown, segments published=3, and it may" in str(unknown.value)


def test_a_refused_probe_names_the_permission_and_keeps_long_causes_short() -> None:
    plan = build_plan(day_spec(dropExisting=True))
    forbidden = DruidAuthError("Unauthorized: " + "x" * 600, status=403)
    refusal = probe_refused(plan, DruidRetriesExhaustedError(forbidden, 3, 1.0))
    text = str(refusal)
    assert isinstance(refusal, DruidInputProbeRefusedError) and refusal.status == 403
    assert f"the input of this dropExisting replace of {plan.intervals[0]} of 'events_web' could not be probed" in text
    assert "POST /druid/indexer/v1/sampler needs STATE WRITE, which a submit alone (datasource WRITE) does not" in text
    assert "x" * 401 not in text and "x" * 300 + "..." in text  # the cause cut at 400 characters
    rejected = str(probe_refused(plan, DruidAuthError("bad password", status=401)))
    assert "the credentials were rejected (bad password HTTP 401); fix them, or pass allow_empty=True" in rejected
    assert "STATE WRITE" not in rejected
    down = probe_refused(plan, DruidError("Service Unavailable", status=503))
    assert isinstance(down, DruidInputProbeError) and "the sampler did not answer (Service Unavailable HTTP 503); " \
        "pass allow_empty=True" in str(down)
    short = "y" * 400
    assert f"({short} HTTP 500)" not in str(probe_refused(plan, DruidError(short, status=500)))  # 409 chars: cut
    assert "(" + "z" * 391 + " HTTP 500)" in str(probe_refused(plan, DruidError("z" * 391, status=500)))  # 400: kept


def test_an_input_is_described_by_where_it_reads() -> None:
    assert describe_input({"type": "s3", "uris": ["s3://a/1", "s3://a/2", "s3://a/3"], "prefixes": ""}) == (
        "s3 input source uris=[s3://a/1, s3://a/2, s3://a/3]")
    assert describe_input({"type": "s3", "uris": ["s3://a/1", "s3://a/2", "s3://a/3", "s3://a/4"]}) == (
        "s3 input source uris=[s3://a/1, s3://a/2, s3://a/3, ... (4 in all)]")
    assert describe_input({"baseDir": "/d"}) == "? input source baseDir=/d"
