"""The pause/resume pair against the fake Druid: the record through XCom, resume after a failed backfill
(``all_done``), a lost record recovered from the audit history, a supervisor suspended by someone else refused."""

from __future__ import annotations

import pytest

from airflow_provider_druid_ingest.common.errors import DruidFatalFailure
from airflow_provider_druid_ingest.operators import (
    DruidPauseAutoCompactionOperator,
    DruidResumeAutoCompactionOperator,
)

from ..conftest import FakeTI

DS = "wiki"


def test_pause_pushes_the_record_and_resume_puts_the_config_back(druid_conn, ctx):
    original = druid_conn.auto_compaction.put_config({"dataSource": DS, "skipOffsetFromLatest": "P2D"})
    ti = FakeTI("pause_auto_compaction")
    record = DruidPauseAutoCompactionOperator(task_id="pause_auto_compaction", datasource=DS).execute(
        {**ctx, "ti": ti})
    assert record["paused"] == "compaction config" and record["config"] == original
    assert DS not in druid_conn.auto_compaction.configs
    ti.xcom_push("return_value", record)
    resume = DruidResumeAutoCompactionOperator(task_id="resume_auto_compaction", datasource=DS)
    assert resume.trigger_rule == "all_done"
    assert resume.execute({**ctx, "ti": ti}) == "resumed"
    assert druid_conn.auto_compaction.configs[DS] == original
    assert resume.execute({**ctx, "ti": ti}) == "already resumed"


def test_resume_without_a_record_recovers_from_the_audit_history(druid_conn, ctx):
    original = druid_conn.auto_compaction.put_config({"dataSource": DS})
    DruidPauseAutoCompactionOperator(task_id="p", datasource=DS).execute({**ctx, "ti": FakeTI()})
    assert DruidResumeAutoCompactionOperator(task_id="r", datasource=DS, pause_task_id="p").execute(
        {**ctx, "ti": FakeTI()}) == "resumed"  # the XCom is empty
    assert druid_conn.auto_compaction.configs[DS] == original


def test_a_supervisor_already_suspended_fails_the_pause_without_retries(druid_conn, ctx):
    druid_conn.auto_compaction.use_supervisors = True
    druid_conn.auto_compaction.add_supervisor(DS, suspended=True)
    with pytest.raises(DruidFatalFailure, match="adopt_suspended=True"):
        DruidPauseAutoCompactionOperator(task_id="p", datasource=DS).execute({**ctx, "ti": FakeTI()})
    record = DruidPauseAutoCompactionOperator(task_id="p", datasource=DS, adopt_suspended=True).execute(
        {**ctx, "ti": FakeTI()})
    assert record["supervisor_id"] == "autocompact__wiki"


def test_a_record_of_another_datasource_fails_before_any_http(druid_conn, ctx):
    ti = FakeTI()
    ti.xcom_push("return_value", {"datasource": "other", "paused": "nothing configured"})
    with pytest.raises(DruidFatalFailure, match=r"record\.datasource"):
        DruidResumeAutoCompactionOperator(task_id="r", datasource=DS).execute({**ctx, "ti": ti})
    assert druid_conn.requests == []
