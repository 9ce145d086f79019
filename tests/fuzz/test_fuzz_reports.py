"""Fuzz: task reports of both shapes (wrapped ``ingestionStatsAndErrors`` and a bare payload), the summary, its
text forms and the failure message built from it."""

from __future__ import annotations

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.api._models import TaskStatus
from druid_ingest.api._report_summary import ReportSummary
from druid_ingest.api._reports import parse_report, task_failed_error
from druid_ingest.ops._outcomes import TaskOutcome
from druid_ingest.wire._http import Response

from .gen import seeded
from .harness import fuzz, guarded
from .shapes import report_body
from .strategies import response

pytestmark = pytest.mark.fuzz


def test_fuzz_reports() -> None:
    def check(resp: Response) -> None:
        body = guarded(lambda: ep.parse_reports(resp, ep.reports("t1")))
        if isinstance(body, Exception):
            return
        summary = parse_report(body)  # documented never to raise
        if summary is None:
            return
        summary.format()
        summary.progress_line()
        summary.totals()
        assert ReportSummary.from_dict(summary.to_dict()) == summary
        failed = TaskStatus("t1", "FAILED", error_msg="boom")
        assert len(str(task_failed_error(failed, summary))) <= 8100
        TaskOutcome.terminal(failed, summary).to_dict()

    fuzz("reports", seeded(response(report_body)), check)
