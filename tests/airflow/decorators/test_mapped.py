"""``@task.druid_ingest`` / ``@task.druid_msq`` mapped with ``.expand()`` and ``.partial().expand()`` (one ingestion
per day from a list), run under ``dag.test()`` against FakeDruid over real sockets: each mapped instance submits once
under its own deterministic Druid task id, a re-run adopts (no second task), and every instance holds the
decorator's ``pool_slots``."""

from __future__ import annotations

import pendulum
import pytest
from airflow.sdk import DAG, CronDataIntervalTimetable, task

from tests.days import day_interval

from ..helpers import FAST, posts, spec
from ..operators.test_msq import SQL, sql_posts
from ..test_dags import run_dag, stored_xcoms

pytestmark = pytest.mark.usefixtures("airflow_db")

DAYS = ["2026-07-14", "2026-07-15"]
TABLES = ["msq_a", "msq_b"]
START = pendulum.datetime(2026, 7, 1, tz="UTC")


def mapped_tis(dr, task_id: str) -> list:
    return sorted((ti for ti in dr.get_task_instances() if ti.task_id == task_id), key=lambda ti: ti.map_index)


def druid_ids(dr, task_id: str) -> list[str]:
    return [value for tid, key, value in stored_xcoms(dr) if (tid, key) == (task_id, "druid_task_id")]


def ingest_dag(dag_id: str, *, partial: bool, deferrable: bool = True) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START) as dag:  # unscheduled: each spec's own interval applies

        @task.druid_ingest(datasource="wiki", pool_slots=3, deferrable=deferrable, **FAST)
        def ingest(day: str, root: str = "/data/events") -> dict:
            built = spec(intervals=[day_interval(day)])
            built["spec"]["ioConfig"]["inputSource"]["baseDir"] = f"{root}/{day}"
            return built

        (ingest.partial(root="/data/web") if partial else ingest).expand(day=DAYS)
    return dag


@pytest.mark.parametrize("partial", [False, True], ids=["expand", "partial-expand"])
def test_each_mapped_day_submits_once_under_its_own_id_and_a_rerun_adopts(druid_conn, partial):
    dag = ingest_dag(f"deco_mapped_{int(partial)}", partial=partial)
    dr = run_dag(dag)
    tis = mapped_tis(dr, "ingest")
    assert [(ti.map_index, ti.state) for ti in tis] == [(0, "success"), (1, "success")]
    assert [ti.pool_slots for ti in tis] == [3, 3]  # the decorator's pool_slots, on every instance
    sent = posts(druid_conn)
    assert sorted(p.json["spec"]["dataSchema"]["granularitySpec"]["intervals"][0] for p in sent) == [
        day_interval(d) for d in DAYS]
    root = "/data/web" if partial else "/data/events"
    assert sorted(p.json["spec"]["ioConfig"]["inputSource"]["baseDir"] for p in sent) == [f"{root}/{d}" for d in DAYS]
    ids = druid_ids(dr, "ingest")
    assert len(set(ids)) == 2 and sorted(ids) == sorted(p.json["id"] for p in sent)  # one Druid task per instance

    again = run_dag(dag)  # the same run again (dag.test clears it): every instance adopts its SUCCESS task
    assert {ti.state for ti in mapped_tis(again, "ingest")} == {"success"}
    assert len(posts(druid_conn)) == 2
    assert sorted(druid_ids(again, "ingest")) == sorted(ids)


def test_mapped_instances_of_a_worker_wait_also_keep_their_own_ids(druid_conn):
    dr = run_dag(ingest_dag("deco_mapped_worker", partial=False, deferrable=False))
    assert {ti.state for ti in mapped_tis(dr, "ingest")} == {"success"}
    assert len(posts(druid_conn)) == 2 and len(set(druid_ids(dr, "ingest"))) == 2


def test_mapped_msq_one_statement_per_table_for_the_runs_day(druid_conn):
    """MSQ plans exactly one interval, the run's (the decorator's ``intervals=`` cannot be mapped): map over what
    else varies, here the target table, in a daily run."""
    with DAG("deco_mapped_msq", schedule=CronDataIntervalTimetable("@daily", timezone="UTC"),
             start_date=START, catchup=False) as dag:

        @task.druid_msq(**FAST)
        def replace_day(table: str, source: str) -> str:
            return SQL.replace("msq_op", table).replace("TABLE(EXTERN('{}', '{}'))", source)

        replace_day.partial(source="TABLE(EXTERN('{}', '{}'))").expand(table=TABLES)
    dr = run_dag(dag)
    tis = mapped_tis(dr, "replace_day")
    assert [ti.state for ti in tis] == ["success"] * 2 and [ti.pool_slots for ti in tis] == [2, 2]
    sent = sql_posts(druid_conn)
    assert sorted(p.json["query"].split('"')[1] for p in sent) == TABLES
    assert all("TIMESTAMP '2026-11-01 00:00:00'" in p.json["query"] for p in sent)  # the run's interval
    ids = druid_ids(dr, "replace_day")
    assert len(set(ids)) == 2 and all(i.startswith("query-msq_msq_") for i in ids)
    again = run_dag(dag)
    assert {ti.state for ti in mapped_tis(again, "replace_day")} == {"success"} and len(sql_posts(druid_conn)) == 2
    assert sorted(druid_ids(again, "replace_day")) == sorted(ids)


DAILY = CronDataIntervalTimetable("@daily", timezone="UTC")


def test_in_a_scheduled_run_each_instance_ingests_the_interval_its_function_returns(druid_conn):
    """A run's data interval would replace every instance's spec intervals (the operator's rule): the function
    returns ``ForIntervals(spec, [...])`` to name its own, as ``intervals=`` would (it cannot be mapped)."""
    from airflow_provider_druid_ingest.decorators import ForIntervals

    with DAG("deco_mapped_scheduled", schedule=DAILY, start_date=START, catchup=False) as dag:

        @task.druid_ingest(datasource="wiki", **FAST)
        def ingest(day: str):
            built = spec()
            built["spec"]["ioConfig"]["inputSource"]["baseDir"] = f"/data/{day}"
            return ForIntervals(built, [day_interval(day)])

        @task.druid_msq(datasource="msq_op", **FAST)
        def replace(day: str):
            return ForIntervals(SQL, [day_interval(day)])  # renders {{ interval_start }} per instance

        ingest.expand(day=DAYS)
        replace.expand(day=DAYS)
    dr = run_dag(dag)
    assert {ti.state for ti in dr.get_task_instances()} == {"success"}
    assert sorted(p.json["spec"]["dataSchema"]["granularitySpec"]["intervals"][0] for p in posts(druid_conn)) == [
        day_interval(d) for d in DAYS]
    assert sorted(p.json["query"].split("TIMESTAMP '")[1][:10] for p in sql_posts(druid_conn)) == DAYS
    again = run_dag(dag)
    assert {ti.state for ti in again.get_task_instances()} == {"success"}
    assert len(posts(druid_conn)) == 2 and len(sql_posts(druid_conn)) == 2


def test_msq_pool_slots_of_a_mapped_task_follow_max_num_tasks():
    with DAG("deco_mapped_slots", schedule=None, start_date=START):

        @task.druid_msq(query_context={"maxNumTasks": 4})
        def wide(table: str) -> str:
            return SQL.replace("msq_op", table)

        mapped = wide.expand(table=TABLES).operator
    assert mapped.pool_slots == 4
