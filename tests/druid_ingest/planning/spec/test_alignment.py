"""A replace whose intervals are not on segmentGranularity bucket boundaries is refused before any HTTP.

The Berlin case was reproduced on Druid 33: a daily Europe/Berlin DAG with DAY segments sent 49 hours over two
runs and 27 were readable afterwards, both runs green.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from druid_ingest.errors import SpecValidationError
from druid_ingest.planning._plan import build_plan
from druid_ingest.planning.spec.alignment import alignment_findings
from druid_ingest.planning.spec.buckets import Buckets, buckets_of
from druid_ingest.planning.spec.intervals import parse_instant

from tests.druid_ingest.sample_specs import BASE

BERLIN_RUN_1 = "2026-10-23T22:00:00Z/2026-10-24T22:00:00Z"
BERLIN_RUN_2 = "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z"  # the DST day: 25 hours
GS = "spec.dataSchema.granularitySpec"


def spec_with(segment: Any, *intervals: str, append: bool = False, drop: bool = True) -> dict[str, Any]:
    spec = copy.deepcopy(BASE)
    gs = spec["spec"]["dataSchema"]["granularitySpec"]
    if segment is None:
        del gs["segmentGranularity"]
    else:
        gs["segmentGranularity"] = segment
    gs["queryGranularity"] = "NONE"
    gs["intervals"] = list(intervals)
    io = spec["spec"]["ioConfig"]
    io["appendToExisting"], io["dropExisting"] = append, drop
    if append:  # Druid refuses appends with perfect rollup
        spec["spec"]["tuningConfig"] = {"type": "index_parallel", "partitionsSpec": {"type": "dynamic"}}
    return spec


def refusal(spec: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecValidationError) as info:
        build_plan(spec)
    return [str(p) for p in info.value.problems]


def test_berlin_day_run_with_day_segments_is_refused_naming_buckets_loss_and_fixes() -> None:
    [text] = refusal(spec_with("DAY", BERLIN_RUN_1))
    assert text.startswith(f"{GS}.intervals[0]:")
    assert "2026-10-23/2026-10-24 and 2026-10-24/2026-10-25" in text
    assert "24 hours: 2026-10-23T00:00Z to 22:00Z and 2026-10-24T22:00Z to 24:00Z" in text
    assert "UTC timetable" in text and "'HOUR'" in text
    assert '"type": "period", "period": "P1D", "timeZone"' in text
    assert "allow_unaligned=True" in text and "--allow-unaligned" in text


def test_the_dst_day_run_is_refused_with_its_own_loss() -> None:
    [text] = refusal(spec_with("DAY", BERLIN_RUN_2))
    assert "2026-10-24/2026-10-25 and 2026-10-25/2026-10-26" in text
    assert "23 hours: 2026-10-24T00:00Z to 22:00Z and 2026-10-25T23:00Z to 24:00Z" in text


def test_an_offset_interval_is_printed_in_utc_not_its_wall_clock_with_a_z() -> None:
    """New York's day 2026-10-23T00:00-05:00 is 05:00Z to 05:00Z: the lost hours are 00:00Z-05:00Z of the 23rd and
    05:00Z-24:00Z of the 24th (the wall clock with a Z would say 00:00Z to 00:00Z and 00:00Z to 24:00Z)."""
    [text] = refusal(spec_with("DAY", "2026-10-23T00:00:00-05:00/2026-10-24T00:00:00-05:00"))
    assert "24 hours: 2026-10-23T00:00Z to 05:00Z and 2026-10-24T05:00Z to 24:00Z" in text
    assert "00:00Z to 00:00Z" not in text


def test_absent_segment_granularity_is_druids_default_day() -> None:
    [text] = refusal(spec_with(None, BERLIN_RUN_1))
    assert "DAY" in text and "2026-10-23/2026-10-24" in text


def test_legacy_overwrite_is_a_replace_too() -> None:
    assert refusal(spec_with("DAY", BERLIN_RUN_1, drop=False))


def test_each_unaligned_interval_gets_its_own_problem() -> None:
    texts = refusal(spec_with("DAY", BERLIN_RUN_1, BERLIN_RUN_2))
    assert [t.split(":")[0] for t in texts] == [f"{GS}.intervals[0]", f"{GS}.intervals[1]"]
    # each run's own neighbour is covered by the other interval: only the outer edges are lost
    assert "22 hours: 2026-10-23T00:00Z to 22:00Z" in texts[0]
    assert "1 hour: 2026-10-25T23:00Z to 24:00Z" in texts[1]


@pytest.mark.parametrize("interval", [BERLIN_RUN_1, BERLIN_RUN_2])
def test_the_same_intervals_with_hour_segments_are_accepted(interval: str) -> None:
    plan = build_plan(spec_with("HOUR", interval))
    assert plan.intervals == (interval,)
    assert not [w for w in plan.warnings if "aligned" in w]


def test_a_period_granularity_in_the_dags_zone_accepts_berlin_days_including_dst() -> None:
    berlin_day = {"type": "period", "period": "P1D", "timeZone": "Europe/Berlin"}
    build_plan(spec_with(berlin_day, BERLIN_RUN_1))
    build_plan(spec_with(berlin_day, BERLIN_RUN_2))
    # ... and refuses a UTC day, which straddles two Berlin days
    [text] = refusal(spec_with(berlin_day, "2026-10-24T00:00:00Z/2026-10-25T00:00:00Z"))
    assert "2026-10-23T22:00Z/2026-10-24T22:00Z and 2026-10-24T22:00Z/2026-10-25T23:00Z" in text
    assert "25 hours: 2026-10-23T22:00Z to 24:00Z and 2026-10-25T00:00Z to 23:00Z" in text


def test_half_hour_zone_with_hour_segments_is_refused() -> None:
    # a +05:30 daily run: 2026-10-24T00:00+05:30 .. 2026-10-25T00:00+05:30
    [text] = refusal(spec_with("HOUR", "2026-10-23T18:30:00Z/2026-10-24T18:30:00Z"))
    assert "1 hour: 2026-10-23T18:00Z to 18:30Z and 2026-10-24T18:30Z to 19:00Z" in text
    assert "'THIRTY_MINUTE'" in text


def test_half_hour_zone_with_day_segments_is_refused_and_its_period_fix_accepted() -> None:
    # DAY is no better: the run straddles two UTC days; a period in the zone (offset ids are Joda zones) fits
    assert refusal(spec_with("DAY", "2026-10-23T18:30:00Z/2026-10-24T18:30:00Z"))
    kolkata = {"type": "period", "period": "P1D", "timeZone": "Asia/Kolkata"}
    build_plan(spec_with(kolkata, "2026-10-23T18:30:00Z/2026-10-24T18:30:00Z"))
    build_plan(spec_with({"type": "period", "period": "P1D", "timeZone": "+05:30"},
                         "2026-10-23T18:30:00Z/2026-10-24T18:30:00Z"))
    build_plan(spec_with("THIRTY_MINUTE", "2026-10-23T18:30:00Z/2026-10-24T18:30:00Z"))


@pytest.mark.parametrize("zone", ["-05:00", "-0500"])
def test_negative_fixed_offset_zone_buckets_start_at_its_midnight(zone: str) -> None:
    """A ``-05:00`` day is 05:00Z to 05:00Z (a sign read as + would put it at 19:00Z the day before)."""
    day = {"type": "period", "period": "P1D", "timeZone": zone}
    build_plan(spec_with(day, "2026-10-23T05:00:00Z/2026-10-24T05:00:00Z"))
    [text] = refusal(spec_with(day, "2026-10-23T00:00:00Z/2026-10-24T00:00:00Z"))
    assert "2026-10-22T05:00Z/2026-10-23T05:00Z and 2026-10-23T05:00Z/2026-10-24T05:00Z" in text


def test_a_week_bucket_over_two_days_says_it_cannot_see_the_datasource() -> None:
    """Druid's tutorial shape (WEEK segments, a two-day interval) into a datasource that may be new: pre-flight
    cannot see whether the rest of the week holds rows, so it refuses without calling the loss certain, and
    ``allow_unaligned`` (the named way on) plans it."""
    spec = spec_with("WEEK", "2015-09-12/2015-09-14")
    with pytest.raises(SpecValidationError) as info:
        build_plan(spec)
    text = str(info.value)
    assert "any rows stored for the hours outside the interval would be lost" in text
    assert "cannot tell whether rows are stored in those hours" in text and "certain" not in text
    assert "allow_unaligned=True" in text
    assert build_plan(spec, allow_unaligned=True).intervals == ("2015-09-12/2015-09-14",)


def test_week_buckets_start_on_monday() -> None:
    build_plan(spec_with("WEEK", "2026-10-19/2026-10-26"))  # Monday to Monday
    [text] = refusal(spec_with("WEEK", "2026-10-21/2026-10-28"))  # Wednesday to Wednesday
    assert "2026-10-19/2026-10-26 and 2026-10-26/2026-11-02" in text
    lost = "168 hours (7 days): 2026-10-19T00:00Z to 2026-10-21T00:00Z and 2026-10-28T00:00Z to 2026-11-02T00:00Z"
    assert lost in text


def test_month_and_quarter_and_year_buckets() -> None:
    build_plan(spec_with("MONTH", "2026-10-01/2026-12-01"))
    [text] = refusal(spec_with("MONTH", "2026-10-15/2026-11-01"))
    assert "2026-10-01/2026-11-01" in text and "336 hours (14 days): 2026-10-01T00:00Z to 2026-10-15T00:00Z" in text
    build_plan(spec_with("QUARTER", "2026-10-01/2027-01-01"))
    assert refusal(spec_with("QUARTER", "2026-11-01/2027-01-01"))
    build_plan(spec_with("YEAR", "2026-01-01/2027-01-01"))


def test_six_hour_buckets_count_from_midnight_utc() -> None:
    build_plan(spec_with("SIX_HOUR", "2026-10-24T06:00:00Z/2026-10-24T18:00:00Z"))
    assert refusal(spec_with("SIX_HOUR", "2026-10-24T03:00:00Z/2026-10-24T09:00:00Z"))


def test_append_is_never_refused() -> None:
    plan = build_plan(spec_with("DAY", BERLIN_RUN_1, append=True, drop=False))
    assert plan.append and not [w for w in plan.warnings if "aligned" in w]


def test_opt_in_turns_the_refusal_into_a_warning_that_still_names_the_loss() -> None:
    plan = build_plan(spec_with("DAY", BERLIN_RUN_1), allow_unaligned=True)
    [warning] = [w for w in plan.warnings if "not aligned" in w]
    assert "24 hours: 2026-10-23T00:00Z to 22:00Z and 2026-10-24T22:00Z to 24:00Z" in warning


def test_all_granularity_with_intervals_is_never_refused() -> None:
    """Each interval is its own ALL bucket (``AllGranularity.getIterable``): the replace overwrites exactly it.
    It was refused as "overwrites the whole datasource" until Druid 33 showed otherwise (test_all_time_real)."""
    assert alignment_findings(spec_with("ALL", "2026-10-24/2026-10-25")) == ([], [])
    build_plan(spec_with("ALL", BERLIN_RUN_1))


def test_none_granularity_is_always_aligned() -> None:
    build_plan(spec_with("NONE", BERLIN_RUN_1))


def test_no_intervals_means_druid_buckets_the_data_and_nothing_is_refused() -> None:
    assert alignment_findings(spec_with("DAY")) == ([], [])


@pytest.mark.parametrize("granularity", [
    {"type": "period", "period": "P1DT1H"},
    {"type": "period", "period": "P1D", "timeZone": "Mars/Olympus_Mons"},
])
def test_forms_it_cannot_evaluate_give_a_warning_never_a_refusal(granularity: dict[str, Any]) -> None:
    refusals, notes = alignment_findings(spec_with(granularity, BERLIN_RUN_1))
    assert refusals == [] and len(notes) == 1
    assert "cannot check" in str(notes[0])


def test_period_with_origin_and_duration_granularities() -> None:
    two_days = {"type": "period", "period": "P2D", "origin": "2026-10-24T00:00:00Z"}
    build_plan(spec_with(two_days, "2026-10-24/2026-10-28"))
    assert refusal(spec_with(two_days, "2026-10-25/2026-10-27"))
    hour_ms = {"type": "duration", "duration": 3_600_000}
    build_plan(spec_with(hour_ms, BERLIN_RUN_1))
    assert refusal(spec_with(hour_ms, "2026-10-23T18:30:00Z/2026-10-24T18:30:00Z"))


def test_multi_week_periods_count_from_the_epoch_which_was_a_thursday() -> None:
    buckets = buckets_of({"type": "period", "period": "P2W"})
    assert isinstance(buckets, Buckets)
    start = buckets.floor(parse_instant("2026-10-25T12:00:00Z"))
    assert start.isoformat() == "2026-10-22T00:00:00+00:00" and start.weekday() == 3


def test_berlin_months_follow_the_local_calendar() -> None:
    buckets = buckets_of({"type": "period", "period": "P1M", "timeZone": "Europe/Berlin"})
    assert isinstance(buckets, Buckets)
    start = buckets.floor(parse_instant("2026-10-25T12:00:00Z"))
    assert (start.isoformat(), buckets.next(start).isoformat()) == (
        "2026-09-30T22:00:00+00:00", "2026-10-31T23:00:00+00:00")


def test_very_many_buckets_are_still_refused() -> None:
    [text] = refusal(spec_with("SECOND", "2026-01-01T00:00:00.500Z/2026-03-01T00:00:00Z"))
    assert "over 100000 buckets" in text and "lost, 500 ms: 2026-01-01T00:00Z to 00:00:00.500Z" in text
