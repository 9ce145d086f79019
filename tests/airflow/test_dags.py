"""End to end under ``dag.test()`` (triggers run inline) against FakeDruid, plus the example DAGs."""

from __future__ import annotations

import json
import logging
import re
import tempfile
import time

import pendulum
import pytest
from druid_ingest.testing import Fault

from .conftest import PASSWORD, REPO, USER, conn_json

pytestmark = pytest.mark.usefixtures("airflow_db")

LOGICAL = pendulum.datetime(2026, 11, 2, tz="UTC")  # CronDataIntervalTimetable: interval [11-01, 11-02)
DAY = "2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"
TASK = "/druid/indexer/v1/task"


def run_dag(dag):
    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.dagbag import DagBag, sync_bag_to_db

    DagBundlesManager().sync_bundles_to_db()
    bag = DagBag(dag_folder=tempfile.mkdtemp())
    bag.bag_dag(dag)
    sync_bag_to_db(bag, "dags-folder", None)
    return dag.test(logical_date=LOGICAL)


def example_dag(dag_id: str):
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(REPO / "dags"))
    assert bag.import_errors == {}
    dag = bag.dags[dag_id]
    for task in dag.tasks:  # poll fast (the fake finishes in well under a second); fail fast
        task.retries = 0
        if hasattr(task, "poll_interval"):
            task.poll_interval, task.max_poll_interval = 0.1, 0.3
    return dag


def serve_sql(fake, rows: list[dict]) -> None:
    fake.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200,
                         body=json.dumps(rows), content_type="application/json", times=None))


def ti_states(dr) -> dict[str, str]:
    return {ti.task_id: ti.state for ti in dr.get_task_instances()}


def stored_xcoms(dr) -> list:
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session

    with create_session() as session:
        rows = session.query(XComModel).filter(XComModel.dag_id == dr.dag_id, XComModel.run_id == dr.run_id).all()
        return [(row.task_id, row.key, row.value) for row in rows]


def rendered_fields(dr) -> list:
    from airflow.models.renderedtifields import RenderedTaskInstanceFields as RTIF
    from airflow.utils.session import create_session

    with create_session() as session:
        rows = session.query(RTIF).filter(RTIF.dag_id == dr.dag_id, RTIF.run_id == dr.run_id).all()
        return [row.rendered_fields for row in rows]


def test_example_dags_import_cleanly():
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(REPO / "dags"))
    assert bag.import_errors == {}
    assert {"example_druid_daily", "example_druid_split", "example_druid_check", "example_druid_retention",
            "example_druid_compact_monthly"} <= set(bag.dag_ids)
    ingest = bag.dags["example_druid_daily"].get_task("ingest_events_web")
    assert ingest.pool == "druid_ingest" and ingest.pool_slots == 3  # supervisor + 2 subtasks
    check = bag.dags["example_druid_check"].get_task("check_row_count")
    assert check.upstream_task_ids == {"ingest_events_web", "count_source_rows"}  # after the handoff gate


def serve_sql_table(fake, names: list[str], rows: list[list]) -> None:
    """The array answer with its three header rows, as DruidSqlHook asks for it."""
    body = [names, ["LONG"] * len(names), ["BIGINT"] * len(names), *rows]
    fake.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200, body=json.dumps(body),
                         content_type="application/json", times=None))


def check_dag(tmp_path, rows: int):
    """example_druid_check on a datasource and an input root of the test's own, ``rows`` source lines."""
    import importlib.util

    day = tmp_path / "2026-11-01"
    day.mkdir()
    (day / "events.json").write_text("".join(f'{{"event_ts": "2026-11-01T00:00:{i % 60:02d}Z"}}\n'
                                             for i in range(rows)))
    module_spec = importlib.util.spec_from_file_location("example_druid_check",
                                                         REPO / "dags" / "example_druid_check.py")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    dag = module.build_check_dag(dag_id=f"test_druid_check_{rows}", datasource="checked_ds", root=str(tmp_path))
    for task in dag.tasks:
        task.retries = 0
        if hasattr(task, "poll_interval"):
            task.poll_interval, task.max_poll_interval = 0.1, 0.3
    return dag


def test_check_dag_green_when_druids_count_is_the_sources(druid_conn, tmp_path):
    serve_sql_table(druid_conn, ["druid_rows"], [[40]])
    dr = run_dag(check_dag(tmp_path, 40))
    assert dr.state == "success", ti_states(dr)
    sql = [r.json for r in druid_conn.requests if r.path == "/druid/v2/sql"]
    assert len(sql) == 1 and '"checked_ds"' in sql[0]["query"]
    assert "__time >= TIMESTAMP '2026-11-01 00:00:00' AND __time < TIMESTAMP '2026-11-02 00:00:00'" in sql[0]["query"]
    handoff = [r for r in druid_conn.requests if "/metadata/datasources/checked_ds/segments" in r.path]
    assert handoff and handoff[0].time < druid_conn.requests_matching("POST", "/druid/v2/sql")[0].time


def test_check_dag_red_with_both_numbers_when_they_differ(druid_conn, tmp_path, capsys):
    serve_sql_table(druid_conn, ["druid_rows"], [[31]])
    dr = run_dag(check_dag(tmp_path, 40))
    assert dr.state == "failed"
    assert ti_states(dr) == {"ingest_events_web": "success", "count_source_rows": "success",
                             "check_row_count": "failed"}
    out = capsys.readouterr()
    printed = out.out + out.err
    both = r"AirflowFailException: Test failed.\nPass value:40\.0\n(?:.*\n){3}Results:\n\(31,\)"
    assert re.search(both, printed), printed[-3000:]


class ManualClock:
    """FakeDruid's clock, advanced only when a trigger starts: the sensors *must* defer, deterministically."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


class Runs(list):
    on_trigger: list


@pytest.fixture
def trigger_runs(monkeypatch) -> list[str]:
    """Names of the triggers ``dag.test()`` ran inline (i.e. the task really deferred)."""
    from airflow_provider_druid_ingest.triggers.base import DruidWaitTrigger

    runs = Runs()
    original = DruidWaitTrigger.run

    def run(self):
        runs.append(type(self).__name__)
        for hook in on_trigger:
            hook(type(self).__name__)
        return original(self)

    runs.on_trigger = on_trigger = []
    monkeypatch.setattr(DruidWaitTrigger, "run", run)
    return runs


def test_split_dag_every_public_class_green_and_password_never_leaks(trigger_runs, monkeypatch, caplog, capsys):
    from druid_ingest.testing import FakeDruid

    caplog.set_level(logging.DEBUG)
    clock = ManualClock()

    def advance(trigger_name: str) -> None:
        if trigger_name == "DruidHandoffTrigger":
            fake.resume_loading()
        clock.now += 5.0  # the Druid task finishes / segments load only once the sensor has deferred

    trigger_runs.on_trigger.append(advance)
    with FakeDruid(task_duration=1.0, handoff_delay=0.5, auth={USER: (PASSWORD, "write")}, clock=clock) as fake:
        monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url))
        serve_sql(fake, [{"n": 1712}])
        fake.pause_loading()
        dr = run_dag(example_dag("example_druid_split"))
    assert dr.state == "success", ti_states(dr)
    assert set(ti_states(dr).values()) == {"success"}
    assert trigger_runs == ["DruidTaskTrigger", "DruidHandoffTrigger"]  # both sensors deferred
    posts = [r for r in fake.requests if r.method == "POST" and r.path == TASK]
    assert len(posts) == 1
    assert posts[0].json["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [DAY]
    assert posts[0].json["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/tmp/events/2026-11-01"
    xcoms = stored_xcoms(dr)
    keys = {(task_id, key) for task_id, key, _ in xcoms}
    assert {("submit", "druid_task_id"), ("submit", "druid_task_url"), ("submit", "_link_DruidTaskLink")} <= keys
    assert ("wait_for_task", "_link_DruidTaskLink") in keys
    link = next(value for task_id, key, value in xcoms if (task_id, key) == ("submit", "_link_DruidTaskLink"))
    assert "/unified-console.html#tasks/task_id~ingest_events_web_" in str(link)
    out = capsys.readouterr()
    haystack = "\n".join([caplog.text, out.out, out.err, repr(xcoms), repr(rendered_fields(dr))])
    assert "Submitted Druid task" in haystack  # the capture did see the task logs
    assert PASSWORD not in haystack


def test_one_shot_dag_green(druid_conn, trigger_runs, caplog, capsys):
    caplog.set_level(logging.INFO)
    serve_sql(druid_conn, [{"rollup_rows": 1712, "input_rows": 2000}])
    dr = run_dag(example_dag("example_druid_daily"))
    assert dr.state == "success", ti_states(dr)
    posts = [r for r in druid_conn.requests if r.method == "POST" and r.path == TASK]
    assert len(posts) == 1
    handoff_reads = [r for r in druid_conn.requests if "/metadata/datasources/events_web/segments" in r.path]
    assert handoff_reads, "the one-shot task must have gated on handoff"
    assert trigger_runs == ["DruidIngestionTrigger"]  # deferred once, for the task and its handoff
    out = capsys.readouterr()
    assert PASSWORD not in "\n".join([caplog.text, out.out, out.err, repr(stored_xcoms(dr)), repr(rendered_fields(dr))])


def test_one_shot_dag_superseded_gate_labels_the_counts_with_the_served_task(druid_conn, trigger_runs, capsys):
    """Another run replaced the day while ours waited to be served: the gate passes ``superseded``, and the row
    count reads the later task's data, so it must name that task, not ours."""
    import threading

    from druid_ingest.testing import TaskPlan

    from airflow_provider_druid_ingest.hooks.druid import DruidHook

    serve_sql(druid_conn, [{"rollup_rows": 1712, "input_rows": 2000}])
    druid_conn.pause_loading()
    druid_conn.plan_next_task(TaskPlan(duration=1.5))  # the trigger sees our task hold the day's lock
    winner: list[str] = []

    def replace_the_day() -> None:  # another DAG (another spec) ingests the same day behind our lock
        ours = posts_of(druid_conn)[0]
        with DruidHook().get_client() as client:
            while client.status(ours.json["id"]).state != "RUNNING":
                time.sleep(0.05)
            time.sleep(0.5)
            later = json.loads(json.dumps(ours.json))
            later.pop("id")
            later["spec"]["dataSchema"]["dimensionsSpec"]["dimensions"].append("another_column")
            winner.append(client.ensure_submitted(later).task_id)
            for task_id in (ours.json["id"], winner[0]):
                client.wait_for_task(task_id, timeout=30)
        druid_conn.resume_loading()

    threads: list[threading.Thread] = []
    trigger_runs.on_trigger.append(lambda _name: threads.append(threading.Thread(target=replace_the_day)) or
                                   threads[-1].start())
    dr = run_dag(example_dag("example_druid_daily"))
    for thread in threads:
        thread.join(timeout=30)
    assert dr.state == "success", ti_states(dr)
    xcoms = {(task_id, key): value for task_id, key, value in stored_xcoms(dr)}
    ours = xcoms[("ingest_events_web", "return_value")]
    assert winner and winner[0] != ours
    assert xcoms[("ingest_events_web", "druid_served_by_task")] == winner[0]
    counts = xcoms[("count_rows", "return_value")]
    assert counts["served_by_task"] == winner[0], counts
    printed = capsys.readouterr().out
    assert f"served version of Druid task {winner[0]}, not {ours}" in printed, printed


def posts_of(fake) -> list:
    return [r for r in fake.requests if r.method == "POST" and r.path == TASK]


def test_taskflow_dag_parses_and_ingests_the_computed_spec_through_the_deferred_path(druid_conn, trigger_runs):
    """``@task.druid_ingest``: the spec is computed from the upstream task's XCom, then the operator's path runs
    (one submit, one deferral for the task and its handoff, green only once served)."""
    dag = example_dag("example_druid_taskflow")
    ingest = dag.get_task("ingest_events")
    assert ingest.custom_operator_name == "@task.druid_ingest" and ingest.pool_slots == 3
    assert [o.uri for o in ingest.outlets] == ["druid://druid_cluster_default/taskflow_events_web"]
    from .test_assets import _asset_events

    uri = "druid://druid_cluster_default/taskflow_events_web"
    before = len(_asset_events(uri))
    dr = run_dag(dag)
    assert dr.state == "success", ti_states(dr)
    assert trigger_runs == ["DruidIngestionTrigger"]
    druid_task_id = next(v for t, k, v in stored_xcoms(dr) if (t, k) == ("ingest_events", "return_value"))
    events = _asset_events(uri)[before:]
    assert [(e["druid_task_id"], e["interval"], e["queryable"]) for e in events] == [(druid_task_id, DAY, True)]
    posts = [r for r in druid_conn.requests if r.method == "POST" and r.path == TASK]
    assert len(posts) == 1
    sent = posts[0].json["spec"]
    assert sent["dataSchema"]["dataSource"] == "taskflow_events_web"
    assert sent["dataSchema"]["granularitySpec"]["intervals"] == [DAY]
    assert sent["ioConfig"]["inputSource"]["baseDir"] == "/tmp/events/2026-11-01"
    assert sent["tuningConfig"]["maxNumConcurrentSubTasks"] == 1  # no files landed in the test's folder
    assert any(r.path.startswith("/druid/coordinator/v1/metadata/datasources/taskflow_events_web") for r in
               druid_conn.requests), "the decorated task must have gated on handoff"


def test_retention_dag_drops_then_kills_the_aged_day_only(druid_conn, trigger_runs):
    aged, kept = "2026-08-03/2026-08-04", "2026-08-04/2026-08-05"  # the run's day 2026-11-01 less 90 days
    druid_conn.preload_segments("events_web", aged, "2026-08-10T00:00:00.000Z")
    druid_conn.preload_segments("events_web", kept, "2026-08-10T00:00:00.000Z")
    dr = run_dag(example_dag("example_druid_retention"))
    assert dr.state == "success", ti_states(dr)
    assert trigger_runs == ["DruidSegmentStateTrigger", "DruidIngestionTrigger"]  # both waited in the triggerer
    left = druid_conn.segment_ids("events_web")
    assert len(left) == 1 and "2026-08-04T00:00:00.000Z" in left.pop()  # the aged day is gone for good
    kills = [r for r in druid_conn.requests if r.method == "POST" and r.path == TASK]
    assert [r.json["interval"] for r in kills] == ["2026-08-03T00:00:00.000Z/2026-08-04T00:00:00.000Z"]


def test_compact_monthly_dag_compacts_the_runs_month_and_waits_for_it_to_be_served(druid_conn, trigger_runs):
    # dag.test at 2026-11-02 runs the monthly timetable's last complete month: October
    druid_conn.preload_segments("events_web", "2026-10-05/2026-10-06", "2026-10-06T00:00:00.000Z")
    config = druid_conn.auto_compaction.put_config({"dataSource": "events_web", "skipOffsetFromLatest": "P2D"})
    dag = example_dag("example_druid_compact_monthly")
    dr = run_dag(dag)
    assert dr.state == "success", ti_states(dr)
    assert trigger_runs == ["DruidIngestionTrigger"]  # the task and its handoff gate, deferred
    [post] = [r for r in druid_conn.requests if r.method == "POST" and r.path == TASK]
    assert post.json["type"] == "compact" and post.json["granularitySpec"]["segmentGranularity"] == "MONTH"
    assert post.json["ioConfig"]["inputSpec"]["interval"] == "2026-10-01T00:00:00.000Z/2026-11-01T00:00:00.000Z"
    assert [i for i in druid_conn.served_segment_ids("events_web") if "_2026-10-01T00:00:00.000Z_2026-11-01" in i]
    # auto-compaction was off while the month compacted, and is back as it was
    assert druid_conn.auto_compaction.configs["events_web"] == config
    changes = [r for r in druid_conn.requests if "/config/compaction" in r.path and r.method != "GET"]
    assert [(r.method, r.time < post.time) for r in changes] == [("DELETE", True), ("POST", False)]


def test_compact_monthly_dag_resumes_auto_compaction_when_the_compaction_fails(druid_conn, trigger_runs):
    config = druid_conn.auto_compaction.put_config({"dataSource": "events_web", "skipOffsetFromLatest": "P2D"})
    dr = run_dag(example_dag("example_druid_compact_monthly"))  # nothing loaded in October: the compaction fails
    states = ti_states(dr)
    assert dr.state == "failed" and states["compact_month"] == "failed", states
    assert states["resume_auto_compaction"] == "success", states
    assert druid_conn.auto_compaction.configs["events_web"] == config
