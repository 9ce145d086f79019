"""The duration history on a real Druid: a parallel ingestion's subtasks are completed tasks of its datasource,
and Druid bounds ``max`` before it filters by ``type``, so the history must not ask for both in one read."""

from __future__ import annotations

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._history import recent_ingestions
from druid_ingest.ops._poll_schedule import PollSchedule
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
