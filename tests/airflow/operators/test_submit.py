"""DruidSubmitOperator against FakeDruid over real sockets."""

from __future__ import annotations

from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator

from ..conftest import FakeTI
from ..helpers import DAY, posts, shutdowns, spec


def test_submit_pushes_id_and_url_and_a_retry_adopts(druid_conn, context):
    op = DruidSubmitOperator(task_id="submit", spec=spec())
    druid_task_id = op.execute(context)
    assert context["ti"].xcom["druid_task_id"] == druid_task_id
    assert context["ti"].xcom["druid_task_url"].endswith(druid_task_id)
    assert DAY.replace("-", "").replace(":", "")[:8] in druid_task_id  # the run's interval is in the id
    again = DruidSubmitOperator(task_id="submit", spec=spec()).execute({**context, "ti": FakeTI()})
    assert again == druid_task_id
    assert len(posts(druid_conn)) == 1
    assert posts(druid_conn)[0].json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [DAY]


def test_idempotency_key_forces_a_new_task(druid_conn, context):
    first = DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    second = DruidSubmitOperator(task_id="s", spec=spec(), idempotency_key="fix-1").execute(context)
    assert first != second and len(posts(druid_conn)) == 2


def test_submit_operator_on_kill_does_not_shut_down(druid_conn, context):
    op = DruidSubmitOperator(task_id="s", spec=spec())
    op.execute(context)
    op.on_kill()
    assert shutdowns(druid_conn) == []


def test_submit_of_an_empty_dropexisting_replace_fails_before_posting_unless_allowed(druid_conn, context):
    import pytest
    from airflow.sdk.exceptions import AirflowFailException
    from druid_ingest.testing import TaskPlan

    body = spec()
    body["spec"]["ioConfig"].update(dropExisting=True, inputSource={"type": "local", "baseDir": "/data/none"})
    druid_conn.plan_next_task(TaskPlan(rows_per_bucket=0))
    with pytest.raises(AirflowFailException, match="nothing was submitted"):
        DruidSubmitOperator(task_id="s", spec=body).execute(context)
    assert posts(druid_conn) == [] and "druid_task_id" not in context["ti"].xcom
    allowed = DruidSubmitOperator(task_id="s", spec=body, allow_empty=True).execute(context)
    assert [p.json["id"] for p in posts(druid_conn)] == [allowed]
