"""The retention op: drop, then kill, the partition's window ``keep_days`` back, against the fake Druid."""

import dagster as dg
import pytest
from dagster_druid_ingest import daily_partitions, druid_retention_op
from druid_ingest.testing import FakeDruid

pytestmark = pytest.mark.timeout(60)


def test_the_aged_day_is_dropped_then_killed_and_the_next_one_stays(fake_druid: FakeDruid, druid) -> None:
    fake_druid.preload_segments("dg_ret", "2026-08-03/2026-08-04", "2026-08-10T00:00:00.000Z")
    fake_druid.preload_segments("dg_ret", "2026-08-04/2026-08-05", "2026-08-10T00:00:00.000Z")

    @dg.job(partitions_def=daily_partitions("2026-11-01"))
    def retention_job() -> None:
        druid_retention_op("retention", datasource="dg_ret", keep_days=90)()

    result = retention_job.execute_in_process(partition_key="2026-11-01", resources={"druid": druid})
    assert result.success
    assert result.output_for_node("retention") == "2026-08-03T00:00:00Z/2026-08-04T00:00:00Z"
    left = fake_druid.segment_ids("dg_ret")
    assert len(left) == 1 and "2026-08-04T00:00:00.000Z" in left.pop()  # the aged day is gone for good
    again = retention_job.execute_in_process(partition_key="2026-11-01", resources={"druid": druid})
    assert again.success  # a re-run: nothing left to drop, the kill adopted
    [output] = [e.event_specific_data.metadata for e in again.all_events if e.event_type_value == "STEP_OUTPUT"]
    assert output["marked_unused"].value == 0 and output["kill_state"].value == "SUCCESS"


def test_keep_days_below_one_fails_at_definition() -> None:
    with pytest.raises(dg.DagsterInvalidDefinitionError, match="keep_days: must be at least 1"):
        druid_retention_op("retention", datasource="dg_ret", keep_days=0)


def test_the_generic_segment_write_op_drops_the_partition_and_a_bad_plan_sends_nothing(fake_druid: FakeDruid,
                                                                                     druid) -> None:
    from functools import partial

    from dagster_druid_ingest import druid_segment_write_op
    from druid_ingest.planning import build_drop_plan

    fake_druid.preload_segments("dg_sw", "2026-11-01/2026-11-02", "2026-11-10T00:00:00.000Z")

    @dg.job(partitions_def=daily_partitions("2026-11-01"))
    def drop_job() -> None:
        druid_segment_write_op("drop_day", build=partial(build_drop_plan, "dg_sw"))()

    result = drop_job.execute_in_process(partition_key="2026-11-01", resources={"druid": druid})
    assert result.success and result.output_for_node("drop_day") == "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
    [output] = [e.event_specific_data.metadata for e in result.all_events if e.event_type_value == "STEP_OUTPUT"]
    assert (output["kind"].value, output["marked"].value, output["wants_served"].value) == ("drop", 1, False)
    assert fake_druid.served_segment_ids("dg_sw") == set()

    @dg.job(partitions_def=daily_partitions("2026-11-01"))
    def bad_job() -> None:
        druid_segment_write_op("drop_bad", build=partial(build_drop_plan, " "))()

    fake_druid.clear_requests()
    bad = bad_job.execute_in_process(partition_key="2026-11-01", resources={"druid": druid}, raise_on_error=False)
    assert not bad.success and not fake_druid.requests_matching("POST", "/markUnused")


def test_a_restore_is_the_generic_op_over_its_plan(fake_druid: FakeDruid, druid) -> None:
    """The restore's Dagster face is ``druid_segment_write_op`` with its builder: nothing of its own."""
    from functools import partial

    from dagster_druid_ingest import druid_segment_write_op
    from druid_ingest.planning import build_restore_plan

    [segment] = fake_druid.preload_segments("dg_rs", "2026-11-01/2026-11-02", "2026-11-10T00:00:00.000Z")
    fake_druid.mark_unused("dg_rs", "2026-11-01/2026-11-02")

    @dg.job(partitions_def=daily_partitions("2026-11-01"))
    def restore_job() -> None:
        druid_segment_write_op("restore_day", build=partial(build_restore_plan, "dg_rs"))()

    result = restore_job.execute_in_process(partition_key="2026-11-01", resources={"druid": druid})
    assert result.success
    [output] = [e.event_specific_data.metadata for e in result.all_events if e.event_type_value == "STEP_OUTPUT"]
    assert (output["kind"].value, output["marked"].value, output["wants_served"].value) == ("restore", 1, True)
    assert fake_druid.served_segment_ids("dg_rs") == {segment["identifier"]}


def test_a_restore_of_nothing_fails_the_run_unless_its_builder_allows_empty(fake_druid: FakeDruid, druid) -> None:
    """The core's refusal reaches Dagster as a failed step naming the opt-out; ``allow_empty`` travels in the
    builder (``partial(build_restore_plan, ds, allow_empty=True)``), no Dagster code of its own."""
    from functools import partial

    from dagster_druid_ingest import druid_segment_write_op
    from druid_ingest.planning import build_restore_plan

    def job_of(allow_empty: bool) -> dg.JobDefinition:
        @dg.job(name=f"restore_nothing_{allow_empty}", partitions_def=daily_partitions("2026-11-01"))
        def restore_nothing() -> None:
            druid_segment_write_op("restore_day", build=partial(build_restore_plan, "dg_none",
                                                                allow_empty=allow_empty))()
        return restore_nothing

    refused = job_of(False).execute_in_process(partition_key="2026-11-01", resources={"druid": druid},
                                               raise_on_error=False)
    assert not refused.success
    [failure] = [e for e in refused.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "nothing to restore" in str(failure.event_specific_data.error) and "allow_empty=True" in str(
        failure.event_specific_data.error)
    assert job_of(True).execute_in_process(partition_key="2026-11-01", resources={"druid": druid}).success
