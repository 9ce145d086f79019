"""Daily partitions in a non-UTC zone: refused at definition time unless the spec's buckets fit the local days.

A Europe/Berlin day is 2026-10-23T22:00Z..2026-10-24T22:00Z (and 25 hours on 2026-10-25): with DAY segments
each materialization would overwrite hours of the neighbouring partitions (the core's alignment rule).
"""

from __future__ import annotations

from typing import Any

import pytest
from dagster_druid_ingest import druid_daily_asset
from dagster_druid_ingest.ops import druid_daily_job
from dagster_druid_ingest.partitions import PartitionWindow, probe_days
from druid_ingest.errors import SpecValidationError
from druid_ingest.testing import FakeDruid

from tests.dagster_druid_ingest.conftest import LOCATION, materialize

pytestmark = pytest.mark.timeout(60)
SUBMIT = "/druid/indexer/v1/task"


def with_segments(spec: Any, granularity: Any) -> dict[str, Any]:
    out = spec()
    out["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = granularity
    return out


def test_berlin_partitions_with_day_segments_fail_at_definition_time(spec) -> None:
    with pytest.raises(SpecValidationError) as info:
        druid_daily_asset(spec(), start_date="2026-10-24", timezone="Europe/Berlin", datasource="dg_berlin")
    text = str(info.value)
    assert "intervals[0]: is not aligned to segmentGranularity DAY" in text
    assert "2026-10-23/2026-10-24 and 2026-10-24/2026-10-25" in text and "allow_unaligned=True" in text
    with pytest.raises(SpecValidationError):
        druid_daily_job("berlin_job", spec(), start_date="2026-10-24", timezone="Europe/Berlin")


def test_berlin_partitions_with_hour_or_berlin_day_segments_load(spec) -> None:
    hourly = druid_daily_asset(with_segments(spec, "HOUR"), start_date="2026-10-24", timezone="Europe/Berlin",
                               datasource="dg_berlin")
    assert hourly.plan.intervals == ("2026-10-23T22:00:00Z/2026-10-24T22:00:00Z",)
    assert hourly.plan_for("2026-10-25").intervals == ("2026-10-24T22:00:00Z/2026-10-25T23:00:00Z",)
    berlin_days = {"type": "period", "period": "P1D", "timeZone": "Europe/Berlin"}
    druid_daily_asset(with_segments(spec, berlin_days), start_date="2026-10-24", timezone="Europe/Berlin",
                      datasource="dg_berlin")


def test_the_dst_day_is_probed_at_definition_time(spec) -> None:
    assert probe_days("2026-10-01", "Europe/Berlin") == ["2026-10-01", "2026-10-25"]
    assert probe_days("2026-10-01", "UTC") == ["2026-10-01"]
    # America/Chicago's winter days (midnight = 06:00Z) fit SIX_HOUR buckets; its DST day (from 06:00Z to 05:00Z)
    # does not, so the first partition alone would not catch it
    winter = with_segments(spec, "SIX_HOUR")
    with pytest.raises(SpecValidationError, match="2027-03-14"):
        druid_daily_asset(winter, start_date="2027-01-10", timezone="America/Chicago", datasource="dg_c")


def test_opt_in_loads_and_warns(spec) -> None:
    asset = druid_daily_asset(spec(), start_date="2026-10-24", timezone="Europe/Berlin", datasource="dg_berlin",
                              allow_unaligned=True)
    assert any("not aligned" in w for w in asset.plan.warnings)


def test_a_berlin_hourly_partition_materializes_its_local_day(fake_druid: FakeDruid, druid, spec) -> None:
    asset = druid_daily_asset(with_segments(spec, "HOUR"), start_date="2026-10-24", timezone="Europe/Berlin",
                              input_locations=[LOCATION], datasource="dg_berlin")
    result = materialize([asset.asset], druid, partition="2026-10-25")
    assert result.success
    (posted,) = [r for r in fake_druid.requests_matching("POST", SUBMIT) if r.path == SUBMIT]
    assert posted.json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [
        "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z"]


def test_partition_window_of_a_local_day() -> None:
    window = PartitionWindow.of_day("2026-10-25", "Europe/Berlin")
    assert window.interval == "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z"
    assert PartitionWindow.of_day("2026-10-25").interval == "2026-10-25T00:00:00Z/2026-10-26T00:00:00Z"


def test_preflight_warn_loads_a_refused_spec_and_keeps_the_problems_as_warnings(spec) -> None:
    typo = spec()
    typo["spec"]["ioConfig"]["dropExisitng"] = True
    with pytest.raises(SpecValidationError, match="pass preflight='warn'"):
        druid_daily_asset(typo, start_date="2026-10-24", datasource="dg_typo")
    asset = druid_daily_asset(typo, start_date="2026-10-24", datasource="dg_typo", preflight="warn")
    assert any("spec.ioConfig.dropExisitng" in w for w in asset.plan.warnings)
    assert asset.plan.spec["spec"]["ioConfig"]["dropExisitng"] is True
    druid_daily_job("typo_job", typo, start_date="2026-10-24", preflight="warn")


def test_the_refusal_speaks_of_partitions_def_and_its_zone_not_of_a_dag(spec) -> None:
    """The rule is the core's; the fixes are in Dagster's words (issue 27 item 7d)."""
    with pytest.raises(SpecValidationError) as info:
        druid_daily_asset(spec(), start_date="2026-10-24", timezone="Europe/Berlin", datasource="dg_berlin")
    text = str(info.value)
    assert "timetable" not in text and "DAG" not in text and "--allow-unaligned" not in text
    assert "a UTC partitions_def (timezone 'UTC')" in text
    assert "the partitions_def's time zone (Europe/Berlin)" in text and '"timeZone": "Europe/Berlin"' in text


def test_the_msq_refusal_speaks_of_partitions_def_too() -> None:
    """MSQ's unaligned-window refusal is Druid's own; its fix names the partitions_def, not a timetable."""
    from dagster_druid_ingest import MsqTemplate

    sql = ("REPLACE INTO dg_msq_berlin OVERWRITE WHERE __time >= TIMESTAMP '{{ interval_start }}' AND __time < "
           "TIMESTAMP '{{ interval_end }}' SELECT * FROM src PARTITIONED BY DAY")
    template = MsqTemplate(sql, "dg_msq_berlin", timezone="Europe/Berlin")
    with pytest.raises(SpecValidationError) as info:
        template.plan(PartitionWindow.of_day("2026-10-24", "Europe/Berlin"))
    text = str(info.value)
    assert "not aligned with PARTITIONED BY granularity" in text
    assert "timetable" not in text and "a UTC partitions_def (timezone 'UTC')" in text
