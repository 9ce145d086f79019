"""What every spec-driven operator shares: the plan (intervals from the run, validation before HTTP, warnings
in the task log), template handling, and the hook built once per task."""

from __future__ import annotations

import json
import logging

import jinja2
import pytest
from airflow.sdk.exceptions import AirflowFailException

from airflow_provider_druid_ingest.common.run_context import run_intervals
from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator

from ..helpers import DAY, posts, spec


def test_default_intervals_are_the_data_interval_in_druid_iso(context):
    assert run_intervals(context) == [DAY]
    assert run_intervals({"data_interval_start": None, "data_interval_end": None}) is None


def test_invalid_spec_fails_before_any_http(druid_conn, context):
    bad = spec()
    bad["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = "FORTNIGHT"
    del bad["spec"]["dataSchema"]["timestampSpec"]
    with pytest.raises(AirflowFailException) as err:
        DruidIngestOperator(task_id="i", spec=bad).execute(context)
    assert "segmentGranularity" in str(err.value) and "timestampSpec" in str(err.value)
    assert druid_conn.requests == []


def test_string_spec_and_nested_json_suffix_are_not_template_files(druid_conn, context):
    body = spec()
    body["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/x", "filter": "*.json"}
    op = DruidSubmitOperator(task_id="s", spec=body, input_locations=["/data/{{ ds }}"])
    rendered = op.render_template(op.spec, {"ds": "2026-07-16"})
    assert rendered["spec"]["ioConfig"]["inputSource"]["filter"] == "*.json"  # not loaded as a template
    assert op.render_template(op.input_locations, {"ds": "2026-07-16"}) == ["/data/2026-07-16"]
    op.spec = json.dumps(body)
    op.input_locations = ["/data/2026-07-16"]
    op.execute(context)
    assert posts(druid_conn)[0].json["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/data/2026-07-16"


def test_input_locations_ending_in_json_are_locations_not_template_files(druid_conn, context, caplog):
    """Found on the deployment: Airflow treats every templated string ending in ``.json`` as a template file."""
    op = DruidSubmitOperator(task_id="s", spec=spec(), input_locations="s3://b/{{ ds }}.json")
    assert op.render_template(op.input_locations, {"ds": "2026-07-16"}) == "s3://b/2026-07-16.json"
    listed = DruidSubmitOperator(task_id="l", spec=spec(), input_locations=["s3://b/{{ ds }}.json"])
    with caplog.at_level(logging.INFO):
        listed.resolve_template_files()  # what DAG parsing and the worker's startup call
    assert listed.input_locations == ["s3://b/{{ ds }}.json"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert listed.render_template(listed.input_locations, {"ds": "2026-07-16"}) == ["s3://b/2026-07-16.json"]


def test_spec_template_file_is_still_read_by_resolve_template_files(tmp_path):
    (tmp_path / "day.json").write_text(json.dumps(spec()))
    op = DruidSubmitOperator(task_id="f", spec="day.json", input_locations=["/data/x.json"])
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(tmp_path)))  # the DAG's template search path
    op.get_template_env = lambda *args, **kwargs: env
    op.resolve_template_files()
    assert json.loads(op.spec) == spec() and op.input_locations == ["/data/x.json"]


def test_plan_is_built_once_and_spec_warnings_reach_the_task_log(druid_conn, context, caplog, capsys):
    body = spec(tuning={"intermediatePersistPeriod": "PT10M"})  # a streaming-only key: Druid batch ignores it
    op = DruidSubmitOperator(task_id="s", spec=body)
    with caplog.at_level(logging.WARNING):
        plan = op.plan(context)
    assert plan.intervals == (DAY,) and plan.datasource == "wiki" and plan.peak_slots == 1
    logged = caplog.text + capsys.readouterr().out  # Airflow's task logger writes through structlog
    assert "Druid spec warning: spec.tuningConfig.intermediatePersistPeriod" in logged
    assert op.hook is op.hook  # one hook per task execution, never rebuilt per call


def _parallel(k: int) -> dict:
    body = spec(max_subtasks=k)
    body["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/x", "filter": "*.json"}
    return body


def test_slots_beyond_the_cluster_warn_and_a_certain_deadlock_fails_before_submitting(fake_druid_factory, context,
                                                                                       monkeypatch, capsys):
    from ..conftest import conn_json

    small = fake_druid_factory(worker_capacity=4)
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(small.url))
    DruidSubmitOperator(task_id="s", spec=_parallel(4)).execute(context)  # 5 slots on 4: runs, slower
    assert "needs 5 Druid task slots at peak but the cluster has 4" in capsys.readouterr().out
    assert len(posts(small)) == 1
    one = fake_druid_factory(worker_capacity=1)
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(one.url))
    with pytest.raises(AirflowFailException, match="supervisor would hold the only slot"):
        DruidIngestOperator(task_id="i", spec=_parallel(2)).execute(context)
    assert posts(one) == []
