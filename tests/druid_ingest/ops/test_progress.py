"""One progress item and one describe function for every face's sink: the lines and their de-duplication."""

from __future__ import annotations

from druid_ingest.api import HandoffResult, ReportSummary, TaskStatus
from druid_ingest.ops import ProgressLines, TaskProgress, describe_progress


def _status(runner: str) -> TaskStatus:
    return TaskStatus("t1", "RUNNING", runner_state=runner)


ROWS = {"processed": 5, "processedBytes": 500, "processedWithError": 0, "thrownAway": 0, "unparseable": 0}
REPORT = ReportSummary(records_processed=5, row_stats={"buildSegments": ROWS})


def test_describe_names_the_task_phase_rows_and_the_gate_verdict() -> None:
    plain = TaskProgress(_status("RUNNING"))
    assert describe_progress(plain, "t1") == "Druid task t1 RUNNING"
    report = REPORT
    assert describe_progress(TaskProgress(_status("RUNNING"), report), "t1").endswith(report.progress_line())
    gate = HandoffResult("loading", detail="3 of 24 segments served")
    assert describe_progress(gate, "t1") == "Handoff of Druid task t1: loading: 3 of 24 segments served"


def test_lines_drop_repeats_but_keep_reports_and_each_new_verdict() -> None:
    lines: list[str] = []
    sink = ProgressLines(lines.append, "t1")
    running = TaskProgress(_status("RUNNING"))
    sink(running)
    sink(running)  # the same phase again, no report: nothing new to say
    pending = TaskProgress(_status("PENDING"))
    sink(pending)  # a new phase: said
    sink(TaskProgress(_status("RUNNING"), REPORT))  # a fresh report: said
    sink(HandoffResult("loading", detail="1 of 2 segments served"))
    sink(HandoffResult("loading", detail="1 of 2 segments served"))  # the same verdict: dropped
    sink(HandoffResult("loading", detail="2 of 2 segments served"))
    sink("not a progress item")  # ignored
    assert lines == [
        "Druid task t1 RUNNING",
        "Druid task t1 PENDING",
        f"Druid task t1 RUNNING: {REPORT.progress_line()}",
        "Handoff of Druid task t1: loading: 1 of 2 segments served",
        "Handoff of Druid task t1: loading: 2 of 2 segments served",
    ]
