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


def test_the_handoff_verdict_is_settled_once_for_every_face() -> None:
    """pass/fail, the line, the level and the error of each gate outcome: the rule the Airflow and Dagster faces
    only map to their own exceptions (a fatal error: no retry can help)."""
    from druid_ingest.api._models import HandoffResult
    from druid_ingest.errors import DruidEmptyIngestionError, DruidWaitTimeoutError, HandoffNeverError, is_fatal
    from druid_ingest.ops._outcomes import HandoffOutcome

    loaded = HandoffOutcome.of("t1", "ds", HandoffResult("loaded", 2, 2, detail="all served"))
    assert loaded.verdict() == loaded.verdict("pass", True)
    ok = loaded.verdict()
    assert (ok.passed, ok.level, ok.error) == (True, "info", None) and ok.line.startswith("Data of Druid task t1")
    empty = HandoffOutcome.of("t1", "ds", HandoffResult("nothing", detail="no segments"))
    refused = empty.verdict()
    assert not refused.passed and isinstance(refused.error, DruidEmptyIngestionError) and is_fatal(refused.error)
    assert empty.verdict(allow_empty=True).passed and empty.verdict(allow_empty=True).level == "warning"
    never = HandoffOutcome.of("t1", "ds", HandoffResult("never", 1, 0, never=("s1",), detail="zero replicas"))
    assert isinstance(never.verdict().error, HandoffNeverError) and is_fatal(never.verdict().error)
    assert never.verdict("pass").passed and "on_never='pass'" in never.verdict("pass").line
    late = HandoffOutcome.of("t1", "ds", HandoffResult("pending", 2, 1, detail="1 of 2 not served yet"))
    timed_out = late.verdict("pass", True)
    assert isinstance(timed_out.error, DruidWaitTimeoutError) and not is_fatal(timed_out.error)
    assert empty.settle(allow_empty=True).state == "nothing"
    try:
        late.settle()
    except DruidWaitTimeoutError as exc:
        assert "not queryable in time" in str(exc)
    else:
        raise AssertionError("a pending outcome settled")
