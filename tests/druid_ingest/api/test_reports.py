"""Report parsing: both rowStats shapes, live reports, failures with long errorMsg and samples, odd shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.api._report_summary import COUNTERS, ReportSummary
from druid_ingest.api._reports import parse_report

DATA = Path(__file__).resolve().parents[1] / "data"


def load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text())


def test_parallel_shape() -> None:
    summary = parse_report(load("report_parallel.json"))
    assert summary is not None
    assert summary.task_id == "idx_events_web_2026-07-16_3f9a1c2b7d4e"
    assert summary.ingestion_state == "COMPLETED"
    assert list(summary.row_stats) == ["buildSegments"]
    assert summary.totals() == {
        "processed": 1843211,
        "processedBytes": 734118402,
        "processedWithError": 12,
        "thrownAway": 40,
        "unparseable": 3,
    }
    assert summary.segments_published == 24
    assert summary.segments_read == 0
    assert summary.segment_availability_confirmed is True
    assert summary.segment_availability_wait_ms == 41250
    assert summary.records_processed is None
    assert summary.error_msg is None


def test_sequential_shape_keeps_both_phases() -> None:
    summary = parse_report(load("report_sequential.json"))
    assert summary is not None
    assert set(summary.row_stats) == {"determinePartitions", "buildSegments"}
    assert summary.totals()["processed"] == 24433
    assert summary.segments_published == 1
    assert summary.segments_read is None
    assert summary.segment_availability_confirmed is False


def test_live_report_totals_and_moving_averages() -> None:
    summary = parse_report(load("report_live.json"))
    assert summary is not None
    assert summary.ingestion_state == "BUILD_SEGMENTS"
    assert summary.totals()["processed"] == 1016000
    assert summary.totals()["thrownAway"] == 7
    assert summary.moving_averages["buildSegments"]["1m"]["processed"] == pytest.approx(3512.4)
    line = summary.progress_line()
    assert "\n" not in line
    assert "BUILD_SEGMENTS" in line and "processed=1,016,000" in line and "rows/s" in line


def test_failed_report_keeps_full_error_and_first_samples() -> None:
    body = load("report_failed.json")
    full_error = body["ingestionStatsAndErrors"]["payload"]["errorMsg"]
    assert len(full_error) > 1024
    summary = parse_report(body)
    assert summary is not None
    assert summary.error_msg == full_error
    assert summary.unparseable_total == 7
    assert len(summary.unparseable_samples) == 5
    assert summary.unparseable_samples[0].startswith("buildSegments: Timestamp[not-a-time-0] is unparseable")
    assert "input: {" in summary.unparseable_samples[0]
    text = summary.format()
    assert full_error in text
    assert "END-OF-ERROR-MESSAGE" in text
    assert "first 5 of 7" in text
    assert "not-a-time-4" in text and "not-a-time-5" not in text
    assert "unparseable=7" in text


def test_max_samples_is_configurable() -> None:
    summary = parse_report(load("report_failed.json"), max_samples=2)
    assert summary is not None and len(summary.unparseable_samples) == 2


def test_format_for_success() -> None:
    summary = parse_report(load("report_parallel.json"))
    assert summary is not None
    text = summary.format()
    assert "state=COMPLETED" in text
    assert "processed=1,843,211" in text
    assert "with errors=12" in text and "unparseable=3" in text and "thrown away=40" in text
    assert "published=24" in text
    assert "availability confirmed: yes" in text
    assert "errorMsg" not in text


def test_sequential_format_lists_other_phases() -> None:
    summary = parse_report(load("report_sequential.json"))
    assert summary is not None
    assert "determinePartitions:" in summary.format()


@pytest.mark.parametrize(
    "name", ["report_parallel.json", "report_sequential.json", "report_failed.json", "report_live.json"]
)
def test_to_dict_is_json_and_round_trips(name: str) -> None:
    summary = parse_report(load(name))
    assert summary is not None
    as_dict = summary.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert ReportSummary.from_dict(json.loads(json.dumps(as_dict))) == summary


@pytest.mark.parametrize("body", [None, {}])
def test_nothing_to_summarize(body: dict | None) -> None:
    assert parse_report(body) is None


ZEROS = {k: 0 for k in COUNTERS}


@pytest.mark.parametrize(
    ("body", "task_id", "row_stats"),
    [
        # not a section: read as a bare payload that has no taskId and nothing usable
        ({"ingestionStatsAndErrors": "weird"}, None, {}),
        ({"ingestionStatsAndErrors": {"taskId": "t", "payload": None}}, "t", {}),
        ({"ingestionStatsAndErrors": {"taskId": "t", "payload": {"rowStats": [1, 2], "unparseableEvents": 5}}},
         "t", {}),
        ({"ingestionStatsAndErrors": {"taskId": "t", "payload": {"rowStats": {"totals": "x"}}}}, "t", {}),
        # a phase whose counter is not a number: the phase is kept, the counter reads 0
        ({"ingestionStatsAndErrors": {"taskId": "t", "payload": {"rowStats": {"buildSegments": {"processed": "7"}}}}},
         "t", {"buildSegments": ZEROS}),
        ({"ingestionStatsAndErrors": {"taskId": "t", "payload": {"segmentsPublished": "many", "errorMsg": 0}}},
         "t", {}),
        ({"somethingElse": {"a": 1}}, None, {}),
    ],
)
def test_odd_shapes_degrade(body: dict, task_id: str | None, row_stats: dict) -> None:
    """Whatever the shape, a summary with nothing invented: unknown parts empty or None, and it still prints."""
    summary = parse_report(body)
    assert summary is not None
    assert summary.task_id == task_id
    assert summary.row_stats == row_stats
    assert summary.ingestion_state is None and summary.error_msg is None
    assert summary.unparseable_samples == [] and summary.unparseable_total == 0
    assert summary.segments_published is None and summary.segments_read is None
    assert summary.records_processed is None and summary.segment_availability_confirmed is None
    assert summary.totals() == ZEROS
    text = summary.format()
    assert text.startswith(f"Druid task {task_id or '?'} report: state=unknown") and "published=n/a" in text
    assert ("no row stats" in text) == (not row_stats)
    assert summary.progress_line() == ("no row stats yet" if not row_stats else
                                       "processed=0 errors=0 unparseable=0 thrownAway=0")
    assert ReportSummary.from_dict(json.loads(json.dumps(summary.to_dict()))) == summary


def test_unknown_keys_ignored_and_counters_filled() -> None:
    body = {
        "ingestionStatsAndErrors": {
            "taskId": "t1",
            "payload": {
                "ingestionState": "COMPLETED",
                "newFieldFromDruid99": {"x": 1},
                "rowStats": {"buildSegments": {"processed": 5}},
                "recordsProcessed": {"0": 3, "1": 4},
            },
        },
        "someOtherReport": {"type": "other"},
    }
    summary = parse_report(body)
    assert summary is not None
    assert summary.totals() == {"processed": 5, **{k: 0 for k in COUNTERS if k != "processed"}}
    assert summary.records_processed == 7


def test_unparseable_event_shapes() -> None:
    body = {
        "ingestionStatsAndErrors": {
            "taskId": "t2",
            "payload": {
                "ingestionState": "COMPLETED",
                "unparseableEvents": {
                    "determinePartitions": ["Unable to parse row [garbage]"],
                    "buildSegments": [{"message": "bad number"}, {"input": "x" * 1000}],
                },
            },
        }
    }
    summary = parse_report(body)
    assert summary is not None
    assert summary.unparseable_total == 3
    assert summary.unparseable_samples[0] == "determinePartitions: Unable to parse row [garbage]"
    assert summary.unparseable_samples[1] == "buildSegments: bad number"
    assert summary.unparseable_samples[2].endswith("...")
    assert len(summary.unparseable_samples[2]) < 400


def test_bare_payload_is_tolerated() -> None:
    summary = parse_report({"ingestionState": "COMPLETED", "rowStats": {"totals": {"buildSegments": {"processed": 1}}}})
    assert summary is not None and summary.totals()["processed"] == 1


def test_sums_when_no_build_segments_phase() -> None:
    summary = ReportSummary(row_stats={"a": dict.fromkeys(COUNTERS, 1), "b": dict.fromkeys(COUNTERS, 2)})
    assert summary.totals() == dict.fromkeys(COUNTERS, 3)
    assert ReportSummary().progress_line().endswith("no row stats yet")


def test_progress_line_hides_the_parallel_supervisors_own_not_started_state() -> None:
    summary = parse_report({"ingestionStatsAndErrors": {"taskId": "t", "payload": {
        "ingestionState": "NOT_STARTED", "rowStats": {"totals": {"buildSegments": {"processed": 1200}}}}}})
    assert summary is not None
    line = summary.progress_line()
    assert "NOT_STARTED" not in line and "processed=1,200" in line
    assert summary.format().count("report:") == 1  # one header (it used to be printed twice)
