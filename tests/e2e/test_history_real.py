"""The duration history on a real Druid: a parallel ingestion's subtasks are completed tasks of its datasource,
and Druid bounds ``max`` before it filters by ``type``, so the history must not ask for both in one read."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._history import HISTORY_SIZE, HistoryCache, many_histories, recent_ingestions, task_history
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning import parse_instant
from druid_ingest.planning.spec import render_spec
from druid_ingest.wire import call

from tests.days import day_interval

pytestmark = pytest.mark.timeout(600)


def test_the_history_finds_a_parallel_run_its_subtasks_crowd_out_of_druids_type_filter(
        real: DruidClient, spec_template, events_dir) -> None:
    ds, day = "e2e_history", "2026-11-05"
    spec = render_spec(spec_template, datasource=ds, intervals=[day_interval(day)],
                       input_locations=[str(events_dir / day)])
    outcome = real.ensure_submitted(spec)
    status = real.wait_for_task(outcome.task_id, timeout=300, schedule=PollSchedule(0.5, 2, 1.5))
    assert status.state == "SUCCESS", status
    newest = real._run(call(ep.tasks("complete", ds, 1), ep.parse_tasks))
    assert [t.task_type for t in newest] != ["index_parallel"], newest  # the newest completed task is a subtask
    # Druid's own answer to type + max: the run is not among the newest 1 completed task, so it is not listed
    assert real._run(call(ep.tasks("complete", ds, 1, "index_parallel"), ep.parse_tasks)) == []
    found, scan = real._run(recent_ingestions(ds, "index_parallel", size=1))
    assert [t.task_id for t in found] == [outcome.task_id] and scan > 1
    again, _ = real._run(recent_ingestions(ds, "index_parallel", size=1, scan=scan))  # one read, what was learned
    assert [t.task_id for t in again] == [outcome.task_id]


def test_one_read_over_every_datasource_settles_each_as_its_own_read_would(real: DruidClient) -> None:
    """A start-up herd's histories in one ``GET /tasks?state=complete&max=`` without a datasource: Druid 33 lists
    every datasource's newest completed tasks, and each key that read settles (a page Druid did not fill settles
    them all) has the history its own, filtered read gives. Runs after the test above (its run is listed)."""
    keys = [("e2e_history", "index_parallel"), ("e2e_history_never_ingested", "index_parallel")]
    page = real._run(call(ep.tasks("complete", None, 2 * HISTORY_SIZE), ep.parse_tasks))
    assert page and len({t.datasource for t in page}) >= 1, page  # accepted: the completed tasks of the cluster
    shared = HistoryCache()
    left, read = real._run(many_histories(real.config.url, keys, shared))
    assert read
    if len(page) < 2 * HISTORY_SIZE:
        assert left == [], left  # Druid has no more: every key settled, with or without runs
    for ds, kind in keys:
        if (ds, kind) not in left:
            assert shared.get((real.config.url, ds, kind))[1] == real._run(
                task_history(real.config.url, ds, kind, HistoryCache())), ds
    assert shared.get((real.config.url, "e2e_history_never_ingested", "index_parallel"))[1] is None


def test_druid_reads_created_time_interval_as_a_length_before_now(real: DruidClient) -> None:
    """Why the history reads pass ``createdTimeInterval`` (``ep.ANY_CREATED_TIME``): without one Druid lists only
    the tasks created within ``recentlyFinishedThreshold`` (a day), and with one it reads only the interval's
    length, as "created within that long before now": the two seconds around the run's own creation list nothing
    once its tasks are all older than that, and 1970-3000 lists it. Runs after the first test above (its run)."""
    everything = real._run(call(ep.completed_tasks("e2e_history", 1000), ep.parse_tasks))
    runs = [t for t in everything if t.task_type == "index_parallel" and t.created_time]
    assert runs, everything
    created = parse_instant(runs[0].created_time or "")
    around = (f"{(created - timedelta(seconds=1)).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3]}Z_"
              f"{(created + timedelta(seconds=1)).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3]}Z")
    newest = max(parse_instant(t.created_time or "") for t in everything if t.created_time)  # its last subtask
    time.sleep(max(0.0, 3 - (datetime.now(timezone.utc) - newest).total_seconds()))  # all older than two seconds
    request = ep.tasks("complete", "e2e_history", 1000)
    dated = replace(request, params=(*request.params, ("createdTimeInterval", around)))
    assert [t.task_id for t in real._run(call(dated, ep.parse_tasks))] == []  # the dates count for nothing
    assert {t.task_id for t in real._run(call(ep.tasks("complete", "e2e_history", 1000), ep.parse_tasks))} == {
        t.task_id for t in everything}  # all under a day old here: the default lists them too
