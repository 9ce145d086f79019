"""Any time-window partitions: planned at load with the core's alignment rule; a mismatch names the field."""

from typing import Any

import dagster as dg
import pytest
from dagster_druid_ingest import DruidIngestion, druid_assets, druid_handoff_check, time_partitions
from dagster_druid_ingest.alignment import probe_keys
from druid_ingest.errors import SpecValidationError
from druid_ingest.testing import FakeDruid

from tests.dagster_druid_ingest.conftest import materialize

SUBMIT = "/druid/indexer/v1/task"


def with_segments(spec: Any, granularity: Any) -> dict[str, Any]:
    out = spec()
    out["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = granularity
    return out


def build(spec: dict[str, Any], partitions_def: dg.PartitionsDefinition, **kw: Any) -> dg.AssetsDefinition:
    @druid_assets(spec=spec, partitions_def=partitions_def, datasource="dg_align", input_locations=["/d/{start:%H}"],
                  **kw)
    def events(context: dg.AssetExecutionContext, druid: DruidIngestion):
        yield druid.ingest(context)

    return events


def test_hourly_partitions_with_day_segments_are_refused_naming_field_value_and_valid_cadences(spec) -> None:
    with pytest.raises(SpecValidationError) as info:
        build(spec(), dg.HourlyPartitionsDefinition(start_date="2026-11-01-00:00"))
    first = info.value.problems[0]
    assert first.path == "partitions_def"
    assert first.value == "cron '0 * * * *' in UTC from 2026-11-01-00:00"
    assert "partition 2026-11-01-00:00 (2026-11-01T00:00:00Z/2026-11-01T01:00:00Z) is not aligned" in first.message
    assert "daily, weekly, weekly (day_offset: 1, Mondays), monthly in UTC" in (first.valid or "")
    # the core's own problem follows: the granularity, the bucket and the hours that would be lost
    assert "is not aligned to segmentGranularity DAY" in str(info.value) and "23 hours" in str(info.value)


@pytest.mark.parametrize(("cadence", "start", "granularity"), [
    ("hourly", "2026-11-01-00:00", "HOUR"), ("daily", "2026-11-01", "DAY"), ("monthly", "2026-11-01", "MONTH"),
    ("weekly", "2026-11-02", {"type": "period", "period": "P1W"})])
def test_each_cadence_loads_when_its_windows_are_buckets(spec, cadence, start, granularity) -> None:
    extra = {"day_offset": 1} if cadence == "weekly" else {}  # Druid's weeks start on Monday
    build(with_segments(spec, granularity), time_partitions(cadence, start, **extra))


def test_weekly_sunday_partitions_against_monday_weeks_are_refused(spec) -> None:
    with pytest.raises(SpecValidationError, match="partitions_def: partition 2026-11-01") as info:
        build(with_segments(spec, "WEEK"), time_partitions("weekly", "2026-11-01"))
    assert "weekly (day_offset: 1, Mondays)" in (info.value.problems[0].valid or "")


def test_monthly_partitions_are_probed_past_a_first_month_that_happens_to_fit(spec) -> None:
    # 2027-02-01 and 2027-03-01 are Mondays: the first month fits WEEK buckets, March does not
    with pytest.raises(SpecValidationError, match="partition 2027-03-01"):
        build(with_segments(spec, {"type": "period", "period": "P1W"}), time_partitions("monthly", "2027-02-01"))


def test_a_zone_is_probed_at_its_offset_changes(spec) -> None:
    chicago = time_partitions("daily", "2027-01-10", timezone="America/Chicago")
    assert {"2027-03-14", "2027-11-07"} <= set(probe_keys(chicago))
    with pytest.raises(SpecValidationError, match="partition 2027-03-14"):
        build(with_segments(spec, "SIX_HOUR"), chicago)
    berlin_hours = time_partitions("hourly", "2026-10-24-00:00", timezone="Europe/Berlin")
    build(with_segments(spec, "HOUR"), berlin_hours)


def test_allow_unaligned_loads_and_a_non_time_partitioning_is_refused(spec) -> None:
    build(spec(), dg.HourlyPartitionsDefinition(start_date="2026-11-01-00:00"), allow_unaligned=True)
    with pytest.raises(SpecValidationError, match="partitions_def: is not a time-window"):
        build(spec(), dg.StaticPartitionsDefinition(["a"]))


def test_an_hourly_partition_materializes_its_hour(fake_druid: FakeDruid, druid, spec) -> None:
    events = build(with_segments(spec, "HOUR"), dg.HourlyPartitionsDefinition(start_date="2026-11-01-00:00"))
    result = materialize([events, druid_handoff_check(events)], druid, partition="2026-11-03-05:00")
    assert result.success
    (posted,) = [r for r in fake_druid.requests_matching("POST", SUBMIT) if r.path == SUBMIT]
    assert posted.json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [
        "2026-11-03T05:00:00Z/2026-11-03T06:00:00Z"]
    assert posted.json["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/d/05"
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.partition == "2026-11-03-05:00"
