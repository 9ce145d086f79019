"""Trigger events stay bounded: Druid's errorMsg travels once, cut to MAX_EVENT_ERROR_CHARS (a 5 MB stack trace in a
task report once made a 10 MB event: the message and the summary text each carried it)."""

from __future__ import annotations

import json

from druid_ingest.api._models import TaskStatus
from druid_ingest.api._report_summary import ReportSummary
from druid_ingest.ops._outcomes import MAX_EVENT_ERROR_CHARS, TaskOutcome


def test_failed_event_carries_the_error_once_and_bounded() -> None:
    huge = "java.lang.RuntimeException: " + "at org.apache.druid.Frame(x)\n" * 180_000 + "CAUSE-AT-END"
    assert len(huge) > 5_000_000
    status = TaskStatus(task_id="t1", state="FAILED", error_msg=huge[:1024])
    outcome = TaskOutcome.terminal(status, ReportSummary(error_msg=huge, segments_published=0))
    event = outcome.to_dict()
    size = len(json.dumps(event))
    assert size < MAX_EVENT_ERROR_CHARS + 20_000, size
    assert event["summary"]["error_msg"].startswith("java.lang.RuntimeException")
    assert event["summary"]["error_msg"].endswith("CAUSE-AT-END")  # cut in the middle: head and cause kept
    assert "errorMsg" not in (event["summary_text"] or "")
    rebuilt = TaskOutcome.from_dict(event)
    assert rebuilt.kind == "failed" and rebuilt.report is not None and rebuilt.report.segments_published == 0


def test_small_error_is_kept_whole() -> None:
    status = TaskStatus(task_id="t2", state="FAILED", error_msg="bad row")
    event = TaskOutcome.terminal(status, ReportSummary(error_msg="bad row at line 3")).to_dict()
    assert event["summary"]["error_msg"] == "bad row at line 3"
    assert "bad row at line 3" in event["message"]
