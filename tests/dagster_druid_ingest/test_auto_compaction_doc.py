"""docs/dagster.md "Auto-compaction around a backfill", run as written against the fake Druid (no ``from __future__
import annotations``: Dagster reads the op's context annotation at definition): a backfill op that
fails still gets the datasource's compaction config back (the resume in ``finally``)."""


import dagster as dg
from dagster_druid_ingest import DruidResource
from druid_ingest.testing import FakeDruid


def test_the_documented_op_resumes_even_when_the_backfill_fails(fake_druid: FakeDruid, druid: DruidResource) -> None:
    original = fake_druid.auto_compaction.put_config({"dataSource": "events_web"})
    seen: list[bool] = []

    @dg.op
    def backfill_events_web(context: dg.OpExecutionContext, druid: DruidResource) -> None:
        with druid.get_client() as client:
            record = client.pause_auto_compaction("events_web", on_progress=context.log.info)
            try:
                seen.append("events_web" in fake_druid.auto_compaction.configs)
                raise RuntimeError("the backfill failed")
            finally:
                client.resume_auto_compaction("events_web", record, on_progress=context.log.info)

    @dg.job(resource_defs={"druid": druid})
    def backfill() -> None:
        backfill_events_web()

    result = backfill.execute_in_process(raise_on_error=False)
    assert not result.success and seen == [False]  # paused during the backfill
    assert fake_druid.auto_compaction.configs["events_web"] == original
