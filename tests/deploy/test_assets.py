"""The Asset of a one-shot ingestion drives a downstream DAG on the real scheduler: the consumer run starts after,
and only after, the day is queryable (its own Druid SQL count, taken first thing, is the full day), and the event
carries the Druid task id and the interval."""

from __future__ import annotations

from .assets_flow import CONSUMER, URI, timeline
from .helpers import ts


def test_consumer_runs_only_after_the_data_is_queryable(asset_pipeline):
    r = asset_pipeline
    want = {"rollup_rows": r["want"]["rollup_rows"], "input_rows": r["want"]["rows"]}
    assert r["before"] == {}, f"day {r['day']} was not empty before the run: {r['before']}"
    # exactly one downstream run for this load
    assert [run["dag_run_id"] for run in r["consumer_runs"]] == [r["consumer"]["dag_run_id"]], r["consumer_runs"]
    # the event: our Asset, the Druid task id and the interval in its extra
    extra = r["event"]["extra"]
    assert r["event"]["uri"] == URI
    assert extra["druid_task_id"] == r["druid_task_id"] and extra["interval"] == r["interval"], extra
    assert extra["queryable"] is True and extra["handoff"] == "loaded", extra
    # the order: queryable (seen from outside Airflow too) -> gate passed -> event -> consumer starts
    gate = r["gate_passed"]
    assert r["probe_first_full"] is not None, "the outside probe never saw the full day"
    assert r["probe_first_full"] <= ts(r["consumer"]["start_date"])
    assert gate <= ts(r["ingest"]["end_date"]) <= ts(r["event"]["timestamp"])
    assert ts(r["event"]["timestamp"]) <= ts(r["consumer"]["queued_at"]) <= ts(r["consumer"]["start_date"])
    assert gate <= ts(r["consumer_ti"]["start_date"])
    # and the consumer's first look, through Druid SQL, saw the whole day
    assert r["consumer"]["state"] == "success", r["consumer"]
    [seen] = r["consumer_result"]
    assert {k: seen[k] for k in want} == want, seen
    assert seen["interval"] == r["interval"] and seen["druid_task_id"] == r["druid_task_id"]
    assert gate <= seen["queried_at"]
    assert r["after"] == want
    assert [name for name, _ in timeline(r)][-1] == "consumer run ended", f"{CONSUMER} ended before something"
