"""The daily Druid asset through ``dagster.materialize`` against the fake Druid over real sockets."""

from typing import Any

import dagster as dg
import pytest
from dagster_druid_ingest import druid_daily_asset
from druid_ingest.errors import SpecValidationError
from druid_ingest.testing import FakeDruid, Fault, TaskPlan

from tests.dagster_druid_ingest.conftest import DAY, DAY_INTERVAL, LOCATION, materialize

pytestmark = pytest.mark.timeout(60)
SUBMIT = "/druid/indexer/v1/task"
SAMPLER = "/druid/indexer/v1/sampler"


def submits(fake: FakeDruid) -> list[Any]:
    return [r for r in fake.requests_matching("POST", SUBMIT) if r.path == SUBMIT]


def step_failure(result: dg.ExecuteInProcessResult, step: str) -> dg.Failure | Any:
    """The user failure data (description, metadata) of the one failed step."""
    events = [e for e in result.all_events if e.is_step_failure and e.step_key == step]
    assert len(events) == 1, [e.event_type_value for e in result.all_events]
    return events[0].step_failure_data.user_failure_data


def materialization(result: dg.ExecuteInProcessResult, node: str) -> dict[str, Any]:
    (found,) = result.asset_materializations_for_node(node)
    return {key: value.value for key, value in found.metadata.items()}


def test_success_records_task_rows_duration_segments_and_handoff(fake_druid: FakeDruid, druid, spec) -> None:
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=7, thrown_away=2, unparseable=1))
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_events")
    result = materialize([events.asset, events.check], druid)
    assert result.success
    meta = materialization(result, "dg_events")
    (posted,) = submits(fake_druid)
    task_id = posted.json["id"]
    assert meta["druid/task_id"] == task_id and meta["druid/submit"] == "submitted" and meta["druid/attempt"] == 0
    assert meta["druid/task_url"] == f"{fake_druid.url}/unified-console.html#tasks/task_id~{task_id}"
    assert (meta["druid/rows_processed"], meta["druid/rows_unparseable"], meta["druid/rows_thrown_away"]) == (7, 1, 2)
    assert meta["druid/duration_s"] > 0 and meta["druid/segments_published"] == 1
    assert meta["druid/handoff_state"] in ("pending", "loaded") and meta["druid/intervals"] == DAY_INTERVAL
    # the partition window went through build_plan: Druid got the day's interval and the day's input folder
    schema, io = posted.json["spec"]["dataSchema"], posted.json["spec"]["ioConfig"]
    assert schema["dataSource"] == "dg_events" and schema["granularitySpec"]["intervals"] == [DAY_INTERVAL]
    assert io["inputSource"]["baseDir"] == f"/data/events/{DAY}"
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.partition == DAY and check.metadata["druid/handoff_state"].value == "loaded"


def test_failed_task_fails_with_the_report_summary_in_the_failure(fake_druid: FakeDruid, druid, spec) -> None:
    long_error = "Max parse exceptions[0] exceeded; " + "x" * 1500 + " END-OF-MESSAGE"
    fake_druid.plan_next_task(TaskPlan(outcome="FAILED", error_msg=long_error, unparseable=3))
    events = druid_daily_asset(spec(tuning={"maxSavedParseExceptions": 3}), start_date="2026-11-01",
                               input_locations=[LOCATION], datasource="dg_failed")
    result = materialize([events.asset, events.check], druid)
    assert not result.success
    failure = step_failure(result, "dg_failed")
    assert long_error in failure.description  # the report's whole message, not the status's 1024-character cut
    assert "rows: processed=" in failure.description and "unparseable events (first 3 of 3)" in failure.description
    assert failure.metadata["druid/task_id"].value == submits(fake_druid)[0].json["id"]
    assert "fake,row,0" in failure.metadata["druid/report"].value
    assert result.get_asset_check_evaluations() == []  # the gate never ran on a failed partition


def test_rematerializing_a_partition_adopts_the_task_one_post(fake_druid: FakeDruid, druid, spec) -> None:
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_adopt")
    first = materialization(materialize([events.asset, events.check], druid), "dg_adopt")
    again = materialize([events.asset, events.check], druid)
    assert again.success
    second = materialization(again, "dg_adopt")
    assert len(submits(fake_druid)) == 1
    assert (second["druid/task_id"], second["druid/submit"]) == (first["druid/task_id"], "adopted")


def test_a_running_task_is_adopted_too(fake_druid: FakeDruid, druid, spec) -> None:
    fake_druid.plan_next_task(TaskPlan(duration=1.5))
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_running")
    with druid.get_client() as client:  # the same work submitted outside Dagster, still RUNNING
        assert client.ensure_submitted(events.plan_for(DAY)).action == "submitted"
    result = materialize([events.asset], druid)
    assert result.success and len(submits(fake_druid)) == 1
    assert materialization(result, "dg_running")["druid/submit"] == "adopted"


def test_after_a_failed_task_the_next_materialization_submits_the_next_attempt(fake_druid: FakeDruid, druid,
                                                                              spec) -> None:
    fake_druid.plan_next_task(TaskPlan(outcome="FAILED", error_msg="boom"))
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_retry")
    assert not materialize([events.asset], druid).success
    result = materialize([events.asset], druid)
    assert result.success
    first, second = (r.json["id"] for r in submits(fake_druid))
    meta = materialization(result, "dg_retry")
    assert second == first + "_r1" and meta["druid/task_id"] == second and meta["druid/attempt"] == 1


def test_a_step_retry_policy_resubmits_after_failed_in_one_run(fake_druid: FakeDruid, druid, spec) -> None:
    fake_druid.plan_next_task(TaskPlan(outcome="FAILED", error_msg="transient disk trouble"))
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_policy",
                               retry_policy=dg.RetryPolicy(max_retries=1))
    result = materialize([events.asset], druid)
    assert result.success
    assert [r.json["id"][-3:] for r in submits(fake_druid)][1] == "_r1"
    assert materialization(result, "dg_policy")["druid/attempt"] == 1


def test_an_empty_ingestion_fails_clearly_and_burns_no_retry(fake_druid: FakeDruid, druid, spec) -> None:
    # the sampler sees a row the task will not have (the input changed after the probe): the after-task verdict
    # must catch it
    fake_druid.add_fault(Fault("POST", SAMPLER, kind="status", status=200, content_type="application/json",
                               body='{"numRowsRead": 1, "numRowsIndexed": 1, "data": []}', times=None))
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))  # range partitioning, no rows: SUCCESS + errorMsg
    events = druid_daily_asset(spec(dynamic=False, k=2), start_date="2026-11-01", input_locations=[LOCATION],
                               datasource="dg_empty", retry_policy=dg.RetryPolicy(max_retries=2))
    result = materialize([events.asset, events.check], druid)
    assert not result.success
    failure = step_failure(result, "dg_empty")
    assert "published no segments" in failure.description and "No valid rows" in failure.description
    assert "allow_empty=True" in failure.description
    assert len(submits(fake_druid)) == 1  # no retry: it would only adopt the same SUCCESS task


def test_a_replace_over_an_empty_input_fails_before_submitting_and_burns_no_retry(fake_druid: FakeDruid, druid,
                                                                                   spec) -> None:
    """Dynamic partitioning over an empty folder: Druid 33 would write tombstones over the day and succeed."""
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_void",
                               retry_policy=dg.RetryPolicy(max_retries=2))
    result = materialize([events.asset], druid)
    assert not result.success
    failure = step_failure(result, "dg_void")
    assert "nothing was submitted" in failure.description and "allow_empty=True" in failure.description
    assert f"/data/events/{DAY}" in failure.description
    assert submits(fake_druid) == [] and len(fake_druid.requests_matching("POST", SAMPLER)) == 2  # 1 probe, no retry


def test_allow_empty_accepts_it_and_the_check_passes(fake_druid: FakeDruid, druid, spec) -> None:
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))
    events = druid_daily_asset(spec(dynamic=False, k=2), start_date="2026-11-01", input_locations=[LOCATION],
                               datasource="dg_holiday", allow_empty=True)
    result = materialize([events.asset, events.check], druid)
    assert result.success
    assert materialization(result, "dg_holiday")["druid/handoff_state"] == "nothing"
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.metadata["druid/handoff_state"].value == "nothing"


def test_a_malformed_spec_fails_when_the_definitions_load_before_any_http(fake_druid: FakeDruid, spec) -> None:
    bad = spec()
    bad["spec"]["dataSchema"]["granularitySpec"]["segmentGranularty"] = "DAY"  # misspelled: Druid ignores it
    with pytest.raises(SpecValidationError, match="segmentGranularty"):
        druid_daily_asset(bad, start_date="2026-11-01", input_locations=[LOCATION])
    assert fake_druid.requests == []


@pytest.mark.parametrize("how", ["config", "tag"])
def test_an_idempotency_key_starts_a_new_series(fake_druid: FakeDruid, druid, spec, how: str) -> None:
    events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_key")
    plain = materialization(materialize([events.asset], druid), "dg_key")["druid/task_id"]
    if how == "config":
        run = {"run_config": {"ops": {"dg_key": {"config": {"idempotency_key": "fix-1"}}}}}
    else:
        run = {"tags": {"druid/idempotency_key": "fix-1"}}
    result = materialize([events.asset], druid, **run)
    keyed = materialization(result, "dg_key")
    assert keyed["druid/task_id"] != plain and keyed["druid/submit"] == "submitted"
    assert len(submits(fake_druid)) == 2
