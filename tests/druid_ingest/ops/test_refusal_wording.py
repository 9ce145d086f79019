"""The words of the refusals that stop a submit (failed-attempt evidence, an unprobeable input), pinned: what a
user reads to decide the next step, so a dropped clause or a wrong interval is a defect (each case below killed a
surviving mutant of ``scripts/mutation.sh``)."""

from __future__ import annotations

import pytest
from druid_ingest.api import InputSample, ReportSummary, TaskStatus
from druid_ingest.errors import (
    DruidAuthError,
    DruidError,
    DruidInputProbeError,
    DruidInputProbeRefusedError,
    DruidMayHavePublishedError,
    DruidRetriesExhaustedError,
)
from druid_ingest.ops._evidence import count_sql, next_attempt_line
from druid_ingest.ops._input_probe import describe_input, empty_input_error, outside_error, probe_line, probe_refused
from druid_ingest.planning import build_plan

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


def test_a_cause_of_401_characters_is_cut_to_400() -> None:
    plan = build_plan(day_spec(dropExisting=True))
    assert "(" + "a" * 400 + "...)" in str(probe_refused(plan, DruidError("a" * 401)))
    assert "(" + "b" * 400 + ")" in str(probe_refused(plan, DruidError("b" * 400)))


def test_intervals_are_listed_and_a_spec_without_them_says_so() -> None:
    two = build_plan(day_spec(dropExisting=True), intervals=["2026-11-01/2026-11-02", "2026-11-03/2026-11-04"])
    assert "Replacing 2026-11-01/2026-11-02, 2026-11-03/2026-11-04 of 'events_web'" in str(empty_input_error(two))
    assert "replace of 2026-11-01/2026-11-02, 2026-11-03/2026-11-04 of 'events_web' could not be probed" in str(
        probe_refused(two, DruidError("down", status=503)))
    none = day_spec(dropExisting=True, appendToExisting=False)
    del none["spec"]["dataSchema"]["granularitySpec"]["intervals"]
    unbounded = build_plan(none, preflight="warn")
    assert "Replacing the intervals in the data of 'events_web'" in str(empty_input_error(unbounded))
    refused = probe_refused(unbounded, None)
    assert str(refused).startswith("the input of this dropExisting replace of the intervals in the data of "
                                   "'events_web' could not be probed, and nothing was submitted (an empty input "
                                   "would erase the interval's data): the spec has no ioConfig.inputSource")
    assert count_sql(unbounded) == 'SELECT COUNT(*) AS "stored_rows", SUM("rows") AS "sum_rows" FROM "events_web"'


def test_a_row_at_the_interval_end_is_outside_it() -> None:
    plan = build_plan(day_spec(dropExisting=True))  # 2026-11-01T00:00Z/2026-11-02T00:00Z
    end_ms, last_ms = 1_793_577_600_000, 1_793_577_599_999
    assert outside_error(plan, InputSample(1, 1, times=(end_ms,))) is not None  # half-open: the end is outside
    assert outside_error(plan, InputSample(1, 1, times=(last_ms,))) is None
    assert "all with __time 2026-11-02T00:00:00.000Z, outside" in str(outside_error(plan, InputSample(1, 1,
                                                                                                 times=(end_ms,))))


def test_a_probe_that_parsed_nothing_quotes_the_first_error() -> None:
    assert probe_line(InputSample(2, 0, unparseable=2, first_error="bad json")) == (
        "input probe: warning: the sampler read 2 row(s), none of them indexed (2 unparseable: bad json); "
        "submitting anyway (it reads only the first rows)")
    assert "(2 unparseable); submitting" in probe_line(InputSample(2, 0, unparseable=2))


def test_the_wrong_day_refusal_names_the_times_seen_the_interval_and_the_input() -> None:
    plan = build_plan(day_spec(dropExisting=True), intervals=["2026-11-01/2026-11-02", "2026-11-05/2026-11-06"])
    day_before = (1_793_404_800_000, 1_793_448_000_000)  # 2026-10-31T00:00Z and 12:00Z
    error = outside_error(plan, InputSample(2, 2, times=day_before))
    assert error is not None and error.intervals == plan.intervals
    assert error.source == describe_input(plan.spec["spec"]["ioConfig"]["inputSource"])
    assert str(error) == (
        "the input of this dropExisting replace holds no row of its interval: Druid's sampler read 2 row(s) from "
        f"the {error.source}, all with __time 2026-10-31T00:00:00.000Z to 2026-10-31T12:00:00.000Z, outside "
        "2026-11-01/2026-11-02, 2026-11-05/2026-11-06. Replacing that interval of 'events_web' with it would erase "
        "its data (Druid drops rows outside the intervals and writes tombstones), so nothing was submitted and the "
        "interval's data is untouched. Fix the input (path, filter, the run's date) and run again, or pass "
        "allow_empty=True if an empty interval is intended.")
