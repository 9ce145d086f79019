"""An MSQ REPLACE whose OVERWRITE WHERE window is not on PARTITIONED BY buckets is refused before any HTTP.

Druid refuses it too (DruidSqlParserUtils.validateQueryAndConvertToIntervals), but only after the round trip;
the plan says it first, in Druid's words, with the buckets and hours and the fixes.
"""

from __future__ import annotations

import pytest
from druid_ingest.errors import SpecValidationError
from druid_ingest.planning._msq import build_msq_plan
from druid_ingest.planning._msq_partitions import partitioned_by

BERLIN_DST_DAY = "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z"
STATEMENT = """
REPLACE INTO "msq_align"
OVERWRITE WHERE __time >= TIMESTAMP '{{ interval_start }}' AND __time < TIMESTAMP '{{ interval_end }}'
SELECT TIME_PARSE("ts") AS __time, "page" FROM ext
PARTITIONED BY {{ by }}
"""


def plan(by: str, interval: str = BERLIN_DST_DAY):
    return build_msq_plan(STATEMENT, intervals=[interval], variables={"by": by})


def test_berlin_dst_day_partitioned_by_day_is_refused_in_druids_words() -> None:
    with pytest.raises(SpecValidationError) as info:
        plan("DAY")
    [problem] = info.value.problems
    text = str(problem)
    assert problem.path == "sql.PARTITIONED BY"
    assert ("OVERWRITE WHERE clause identified interval [2026-10-24T22:00:00.000Z/2026-10-25T23:00:00.000Z] which "
            "is not aligned with PARTITIONED BY granularity [{type=period, period=P1D, timeZone=UTC, origin=null}]"
            ) in text
    assert "2026-10-24/2026-10-26" in text and "23 hours" in text and "HOUR" in text


@pytest.mark.parametrize("by", ["HOUR", "TIME_FLOOR(__time, 'PT1H')", "FLOOR(__time TO HOUR)", "'PT1H'"])
def test_hour_partitions_divide_the_berlin_day(by: str) -> None:
    assert plan(by).mode == "REPLACE"


def test_month_and_all_time_are_refused_like_druid() -> None:
    with pytest.raises(SpecValidationError, match=r"period=P1M, timeZone=UTC"):
        plan("MONTH", "2026-10-01T00:00:00Z/2026-10-15T00:00:00Z")
    with pytest.raises(SpecValidationError, match=r"granularity \[AllGranularity\]"):
        plan("ALL TIME", "2026-10-01T00:00:00Z/2026-10-02T00:00:00Z")
    assert plan("MONTH", "2026-10-01T00:00:00Z/2026-11-01T00:00:00Z").mode == "REPLACE"


def test_utc_days_partitioned_by_day_pass() -> None:
    assert plan("DAY", "2026-10-25T00:00:00Z/2026-10-26T00:00:00Z").mode == "REPLACE"


def test_an_unreadable_partitioned_by_warns_and_never_refuses() -> None:
    result = plan("TIME_FLOOR(__time, 'P1DT1H')")
    assert any("cannot check" in w for w in result.warnings)


def test_partitioned_by_forms() -> None:
    assert partitioned_by("x PARTITIONED BY day") == "DAY"
    assert partitioned_by("x PARTITIONED BY ALL TIME CLUSTERED BY a") == "ALL"
    assert partitioned_by("x PARTITIONED BY TIME_FLOOR(\"__time\", 'P1W')") == {"type": "period", "period": "P1W"}
    assert partitioned_by("x") is None
