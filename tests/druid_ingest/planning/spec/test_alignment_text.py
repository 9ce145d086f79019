"""The alignment refusal's wording, pinned: amounts, lists of buckets and lost stretches, clocks. A user
reads these to find the hours at stake, so a wrong number or a dropped bucket is a defect
(each case below killed a surviving mutant of ``scripts/mutation.sh``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from druid_ingest.planning.spec.alignment import _amount, _windows_text, alignment_findings, fmt_span, lost_text

from tests.druid_ingest.planning.spec.test_alignment import spec_with

UTC = timezone.utc


def at(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@pytest.mark.parametrize(("total", "text"), [
    (timedelta(hours=1), "1 hour"), (timedelta(hours=47), "47 hours"),
    (timedelta(hours=48), "48 hours (2 days)"), (timedelta(hours=49), "49 hours"),
    (timedelta(hours=72), "72 hours (3 days)"), (timedelta(minutes=90), "90 minutes"),
    (timedelta(minutes=1), "1 minute"), (timedelta(seconds=120), "2 minutes"),
    (timedelta(seconds=61), "61 seconds"), (timedelta(seconds=1), "1 second"),
    (timedelta(milliseconds=1500), "1500 ms"),
])
def test_amounts(total: timedelta, text: str) -> None:
    assert _amount(total) == text


def test_bucket_lists_name_first_second_and_last_beyond_four() -> None:
    days = [(at(f"2026-10-{d:02d}T00:00:00"), at(f"2026-10-{d + 1:02d}T00:00:00")) for d in range(1, 8)]
    assert _windows_text(days[:1]) == "2026-10-01/2026-10-02"
    assert _windows_text(days[:2]) == "2026-10-01/2026-10-02 and 2026-10-02/2026-10-03"
    assert _windows_text(days[:4]) == ("2026-10-01/2026-10-02, 2026-10-02/2026-10-03, 2026-10-03/2026-10-04 and "
                                       "2026-10-04/2026-10-05")
    assert _windows_text(days[:5]) == ("5 buckets, 2026-10-01/2026-10-02, 2026-10-02/2026-10-03 ... "
                                       "2026-10-05/2026-10-06")


def test_lost_stretches_are_listed_in_order_with_their_total() -> None:
    spans = [(at("2026-10-01T00:00:00"), at("2026-10-01T02:00:00")), (at("2026-10-02T05:00:00"),
             at("2026-10-02T06:30:00")), (at("2026-10-03T22:00:00"), at("2026-10-04T00:00:00"))]
    assert lost_text(spans) == ("330 minutes: 2026-10-01T00:00Z to 02:00Z, 2026-10-02T05:00Z to 06:30Z and "
                                "2026-10-03T22:00Z to 24:00Z")
    assert fmt_span(at("2026-10-01T00:00:05"), at("2026-10-01T00:00:10")) == "2026-10-01T00:00:05Z to 00:00:10Z"
    assert fmt_span(at("2026-10-01T23:00:00-05:00"), at("2026-10-02T00:00:00-05:00")) == (
        "2026-10-02T04:00Z to 05:00Z")  # an offset is shown in UTC, never as its wall clock with a Z


def test_a_bucket_that_ends_exactly_at_the_interval_is_not_listed_twice() -> None:
    """HOUR buckets over 00:30..02:00: the buckets are 00:00-01:00 and 01:00-02:00, no third one at 02:00."""
    [problem], _ = alignment_findings(spec_with("HOUR", "2026-10-01T00:30:00Z/2026-10-01T02:00:00Z"))
    assert ("2026-10-01T00:00Z/2026-10-01T01:00Z and 2026-10-01T01:00Z/2026-10-01T02:00Z, with this run's rows"
            in str(problem)), str(problem)
    assert "30 minutes: 2026-10-01T00:00Z to 00:30Z" in str(problem)


def test_the_period_fix_is_written_in_the_bucket_unit() -> None:
    [hours], _ = alignment_findings(spec_with("SIX_HOUR", "2026-10-01T01:00:00Z/2026-10-01T07:00:00Z"))
    assert '"period": "PT6H"' in str(hours)
    [quarter_hour], _ = alignment_findings(spec_with("FIFTEEN_MINUTE", "2026-10-01T01:05:00Z/2026-10-01T02:00:00Z"))
    assert '"period": "PT15M"' in str(quarter_hour)
    [second], _ = alignment_findings(spec_with("SECOND", "2026-10-01T01:05:00.500Z/2026-10-01T02:00:00Z"))
    assert '"period": "PT1S"' in str(second) and "divides the run's interval, e.g. 'SECOND'" in str(second)
    [month], _ = alignment_findings(spec_with("MONTH", "2026-10-02/2026-11-02"))
    assert '"period": "P1M"' in str(month)


def test_two_intervals_in_one_bucket_lose_only_what_neither_covers() -> None:
    problems, _ = alignment_findings(spec_with("DAY", "2026-10-01T00:00:00Z/2026-10-01T06:00:00Z",
                                               "2026-10-01T12:00:00Z/2026-10-02T00:00:00Z"))
    assert len(problems) == 2
    for problem in problems:
        assert ("so any rows stored for the hours outside the interval would be lost, 6 hours: 2026-10-01T06:00Z "
                "to 12:00Z (got") in str(problem), str(problem)
