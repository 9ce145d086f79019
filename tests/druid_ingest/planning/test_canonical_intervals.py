"""One day, one task id, however the interval is spelled (issue 27 item 4).

A re-run that writes its day as ``2026-10-05/2026-10-06`` where the first run wrote ``...T00:00:00Z`` must adopt
the first run's task: with an append, a second id is a second ingestion of the same rows.
"""

from __future__ import annotations

import pytest
from druid_ingest.planning._ids import base_task_id, canonical_interval
from druid_ingest.planning._msq import build_msq_plan
from druid_ingest.planning._plan import build_plan
from druid_ingest.testing import FakeDruid

from tests.druid_ingest.sample_specs import day_spec

pytestmark = pytest.mark.timeout(60)

DRUID_FORM = "2026-10-05T00:00:00.000Z/2026-10-06T00:00:00.000Z"
SPELLINGS = [
    DRUID_FORM,
    "2026-10-05T00:00:00Z/2026-10-06T00:00:00Z",
    "2026-10-05/2026-10-06",
    "2026-10-05T02:00:00+02:00/2026-10-06T02:00:00+02:00",
]
STATEMENT = """
-- run {{ interval }}
REPLACE INTO "{{ datasource }}"
OVERWRITE WHERE __time >= TIMESTAMP '{{ interval_start }}' AND __time < TIMESTAMP '{{ interval_end }}'
SELECT TIME_PARSE("ts") AS __time, "page"
FROM TABLE(EXTERN('{"type":"inline","data":"..."}', '{"type":"json"}')) EXTEND ("ts" VARCHAR, "page" VARCHAR)
PARTITIONED BY DAY
"""


def append_spec() -> dict:
    return day_spec("2026-10-05", dynamic=True, appendToExisting=True, dropExisting=False)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_is_druids_form(spelling: str) -> None:
    assert canonical_interval(spelling) == DRUID_FORM


def test_what_does_not_parse_is_left_as_is() -> None:
    assert canonical_interval("yesterday/today") == "yesterday/today"


def test_build_plan_gives_one_id_and_sends_the_users_spelling() -> None:
    plans = [build_plan(append_spec(), intervals=[spelling]) for spelling in SPELLINGS]
    assert len({plan.base_task_id for plan in plans}) == 1
    assert plans[0].base_task_id.startswith("ingest_events_web_20261005-20261006_")
    for plan, spelling in zip(plans, SPELLINGS, strict=True):
        assert plan.spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [spelling]


def test_a_different_day_still_gets_a_different_id() -> None:
    one = build_plan(append_spec(), intervals=["2026-10-05/2026-10-06"])
    other = build_plan(append_spec(), intervals=["2026-10-05T00:00:00+02:00/2026-10-06T00:00:00+02:00"])
    assert one.base_task_id != other.base_task_id


def test_a_bare_spec_hashes_its_intervals_canonically_too() -> None:
    bare = append_spec()["spec"]
    ids = set()
    for spelling in SPELLINGS:
        bare["dataSchema"]["granularitySpec"]["intervals"] = [spelling]
        ids.add(base_task_id(bare, "events_web", [spelling]))
    assert len(ids) == 1


def test_the_msq_plan_gives_one_id() -> None:
    plans = [build_msq_plan(STATEMENT, intervals=[spelling], datasource="msq_day") for spelling in SPELLINGS]
    assert len({plan.base_task_id for plan in plans}) == 1
    assert all(f"-- run {DRUID_FORM}" in plan.sql for plan in plans)


def test_a_rerun_spelled_differently_adopts_the_first_task(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    first = client.ensure_submitted(build_plan(append_spec(), intervals=[SPELLINGS[1]]))
    assert first.action == "submitted"
    for spelling in (SPELLINGS[2], SPELLINGS[3]):
        again = client.ensure_submitted(build_plan(append_spec(), intervals=[spelling]))
        assert (again.task_id, again.action) == (first.task_id, "adopted")
    assert len(fake_druid.submit_requests()) == 1
