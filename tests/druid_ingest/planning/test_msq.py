"""MSQ ingestion through the core, over real sockets against the fake Druid, for both clients.

The scenario the real Druid was run through once (dev/druid/RECORDED.md §MSQ): two days ingested, a re-run
adopts, a changed statement replaces, counts match; plus the failure summary, pre-flight rejection and shutdown.
"""

from __future__ import annotations

import time

import pytest
from druid_ingest.api._msq_endpoints import parse_sql_task, sql_task
from druid_ingest.api._msq_reports import parse_msq_report
from druid_ingest.errors import DruidTaskFailedError, DuplicateTaskIdError, SpecValidationError
from druid_ingest.planning._msq import build_msq_plan, check_statement
from druid_ingest.testing import FakeDruid, TaskPlan
from druid_ingest.wire._exchange import call

from tests.druid_ingest.conftest import FAST_POLL

pytestmark = pytest.mark.timeout(60)

DAY1 = "2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"
DAY2 = "2026-11-02T00:00:00Z/2026-11-03T00:00:00Z"
STATEMENT = """
REPLACE INTO "{{ datasource }}"
OVERWRITE WHERE __time >= TIMESTAMP '{{ interval_start }}' AND __time < TIMESTAMP '{{ interval_end }}'
SELECT TIME_PARSE("ts") AS __time, "page", {{ factor }} AS "n"
FROM TABLE(EXTERN('{"type":"inline","data":"..."}', '{"type":"json"}')) EXTEND ("ts" VARCHAR, "page" VARCHAR)
WHERE TIME_PARSE("ts") >= TIMESTAMP '{{ interval_start }}' AND TIME_PARSE("ts") < TIMESTAMP '{{ interval_end }}'
PARTITIONED BY DAY
"""


def plan_for(interval: str, factor: int = 1, ds: str = "msq_core"):
    return build_msq_plan(STATEMENT, intervals=[interval], datasource=ds, variables={"factor": factor})


def sql_posts(fake: FakeDruid) -> list:
    return fake.requests_matching("POST", "/druid/v2/sql/task")


def rows_served(fake: FakeDruid, ds: str, day_start: str) -> int:
    """What a COUNT over the day would read: the rows of the newest used version in that chunk."""
    day = next(s["interval"] for s in fake.used_segments(ds) if s["interval"].startswith(day_start))
    with fake.state.lock:
        used = [s for s in fake.state.used(ds) if s.to_json()["interval"] == day]
        newest = max(s.version for s in used)
        return sum(s.num_rows for s in used if s.version == newest)


def test_two_days_adopt_replace(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    fake_druid.default_plan = TaskPlan(rows_per_bucket=3)
    first = [client.ingest(plan_for(day), handoff_timeout=20, schedule=FAST_POLL) for day in (DAY1, DAY2)]
    assert [r.submit.action for r in first] == ["submitted", "submitted"]
    assert all(r.submit.task_id.startswith("query-msq_msq_core_") for r in first)
    assert all(r.status.task_type == "query_controller" for r in first)
    assert [r.handoff.state for r in first] == ["loaded", "loaded"]
    bodies = [r.json for r in sql_posts(fake_druid)]
    assert [b["context"]["sqlQueryId"] for b in bodies] == [r.submit.task_id[len("query-"):] for r in first]
    assert "TIMESTAMP '2026-11-02 00:00:00'" in bodies[1]["query"]

    # same statement: adopted, nothing posted
    again = client.ingest(plan_for(DAY1), handoff_timeout=20, schedule=FAST_POLL)
    assert again.submit.action == "adopted" and again.submit.task_id == first[0].submit.task_id
    assert len(sql_posts(fake_druid)) == 2

    # a changed statement: a new task, which replaces the day
    changed = client.ingest(plan_for(DAY1, factor=2), handoff_timeout=20, schedule=FAST_POLL)
    assert changed.submit.action == "submitted" and changed.submit.task_id != first[0].submit.task_id
    assert changed.handoff.state == "loaded" and changed.handoff.version != first[0].handoff.version
    assert len(sql_posts(fake_druid)) == 3
    assert changed.report is not None and changed.report.totals()["processed"] == 3
    assert rows_served(fake_druid, "msq_core", "2026-11-01") == 3 == changed.report.records_processed


def test_failed_attempt_summary_and_next_id(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    plan = plan_for(DAY1, ds="msq_fail")
    fake_druid.plan_next_task(TaskPlan(outcome="FAILED", error_msg="TooManyWarnings: Too many warnings of type "
                                       "CannotParseExternalData generated (max = 0)"))
    with pytest.raises(DruidTaskFailedError) as err:
        client.ingest(plan, handoff_timeout=20, schedule=FAST_POLL)
    text = str(err.value)
    assert "TooManyWarnings: Too many warnings of type CannotParseExternalData" in text
    assert plan.base_task_id in text
    retried = client.ingest(plan, handoff_timeout=20, schedule=FAST_POLL)  # FAILED -> the next attempt id
    assert retried.submit.task_id == plan.base_task_id + "_r1" and retried.submit.action == "submitted"
    assert sql_posts(fake_druid)[-1].json["context"]["sqlQueryId"] == plan.base_task_id[len("query-"):] + "_r1"


def test_duplicate_post_resolved_by_status(fake_druid: FakeDruid, make_client) -> None:
    """A racing submitter took the id: MSQ answers with the Overlord's duplicate inside; we read its status."""
    client = make_client()
    plan = plan_for(DAY1, ds="msq_dup")
    first = client.ensure_submitted(plan)
    assert first.action == "submitted"
    with pytest.raises(DuplicateTaskIdError) as dup:
        client._run(call(sql_task(plan, first.task_id), parse_sql_task))
    assert dup.value.task_id == first.task_id


def test_shutdown_of_controller(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    fake_druid.default_plan = TaskPlan(duration=30)
    outcome = client.ensure_submitted(plan_for(DAY1, ds="msq_kill"))
    deadline = time.time() + 10
    while client.status(outcome.task_id).runner_state != "RUNNING" and time.time() < deadline:
        time.sleep(0.05)  # the controller runs (its workers too) before it is shut down, as in the real probe
    client.shutdown(outcome.task_id)
    status = client.wait_for_task(outcome.task_id, timeout=10)
    assert status.state == "FAILED" and "Shutdown request" in (status.error_msg or "")
    report = client.report_summary(outcome.task_id)
    assert report is not None and report.error_msg is not None
    assert report.error_msg.startswith("Canceled: Query canceled by user or by task shutdown.")


@pytest.mark.parametrize(
    ("overwrite", "needle"),
    [
        ("OVERWRITE WHERE __time >= TIMESTAMP '2026-11-01 00:00:00' AND __time < TIMESTAMP '2026-11-03 00:00:00'",
         "does not match the run's interval 2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"),
        ("OVERWRITE ALL", "OVERWRITE ALL replaces every interval"),
        ("OVERWRITE WHERE __time >= TIMESTAMP '2026-11-01 00:00:00'", "does not match the run's interval"),
        ("OVERWRITE WHERE page = 'a'", "is not bounded to the run's interval"),
        ("", "REPLACE has no OVERWRITE clause"),
    ],
)
def test_preflight_rejects_unbounded_replace(fake_druid: FakeDruid, overwrite: str, needle: str) -> None:
    sql = ('REPLACE INTO "msq_pre" ' + overwrite + ' SELECT TIME_PARSE("ts") AS __time FROM t PARTITIONED BY DAY')
    with pytest.raises(SpecValidationError) as err:
        build_msq_plan(sql, intervals=[DAY1])
    assert needle in str(err.value) and "sql.OVERWRITE" in str(err.value)
    assert "TIMESTAMP '2026-11-02 00:00:00'" in str(err.value)  # says what would be valid
    assert fake_druid.requests == []  # nothing was sent


def test_overwrite_all_when_allowed_and_insert_warns() -> None:
    sql = 'REPLACE INTO "msq_pre" OVERWRITE ALL SELECT 1 FROM t PARTITIONED BY ALL'
    assert check_statement(sql, DAY1, allow_overwrite_all=True)[:2] == ("msq_pre", "REPLACE")
    table, mode, warnings = check_statement('INSERT INTO msq_pre SELECT 1 FROM t PARTITIONED BY DAY', DAY1)
    assert (table, mode) == ("msq_pre", "INSERT") and "appends" in warnings[0]
    plan = build_msq_plan('INSERT INTO msq_pre SELECT 1 FROM t PARTITIONED BY DAY', intervals=[DAY1])
    assert plan.append and plan.warnings


def test_preflight_names_other_problems() -> None:
    with pytest.raises(SpecValidationError, match="undefined template variable"):
        build_msq_plan("REPLACE INTO x {{ nope }}", intervals=[DAY1])
    with pytest.raises(SpecValidationError, match=r"PARTITIONED BY"):
        build_msq_plan("INSERT INTO x SELECT 1", intervals=[DAY1])
    with pytest.raises(SpecValidationError, match="writes into 'x' but the datasource is 'y'"):
        build_msq_plan("INSERT INTO x SELECT 1 PARTITIONED BY DAY", intervals=[DAY1], datasource="y")
    with pytest.raises(SpecValidationError, match=r"context\.sqlQueryId"):
        build_msq_plan("INSERT INTO x SELECT 1 PARTITIONED BY DAY", intervals=[DAY1], context={"sqlQueryId": "a"})
    with pytest.raises(SpecValidationError, match="exactly one interval"):
        build_msq_plan("INSERT INTO x SELECT 1 PARTITIONED BY DAY", intervals=[DAY1, DAY2])


def test_same_statement_same_id_changed_statement_new_id() -> None:
    assert plan_for(DAY1).base_task_id == plan_for(DAY1).base_task_id
    assert plan_for(DAY1).base_task_id != plan_for(DAY1, factor=2).base_task_id
    assert plan_for(DAY1).base_task_id != plan_for(DAY2).base_task_id
    keyed = build_msq_plan(STATEMENT, intervals=[DAY1], datasource="msq_core", variables={"factor": 1},
                           idempotency_key="fix-1")
    assert keyed.base_task_id != plan_for(DAY1).base_task_id


def test_report_parser_reads_failure_and_counters() -> None:
    body = {"multiStageQuery": {"type": "multiStageQuery", "taskId": "query-x", "payload": {
        "status": {"status": "FAILED", "errorReport": {"taskId": "query-x-worker0_0", "host": "h:8091", "error": {
            "errorCode": "CannotParseExternalData", "errorMessage": "Unable to parse row [x]"}},
            "warnings": [{"taskId": "w", "error": {"errorCode": "CannotParseExternalData", "errorMessage": "bad"}}]},
        "counters": {"0": {"0": {"input0": {"type": "channel", "rows": [4, 1], "bytes": [10, 5]}}},
                     "1": {"0": {"segmentGenerationProgress": {"type": "segmentGenerationProgress",
                                                               "rowsPushed": 5}}}}}}}
    summary = parse_msq_report(body)
    assert summary is not None
    assert summary.error_msg == "CannotParseExternalData: Unable to parse row [x] (task query-x-worker0_0)"
    assert summary.ingestion_state == "FAILED" and summary.records_processed == 5
    assert summary.totals()["processed"] == 5 and summary.totals()["processedBytes"] == 15
    assert summary.unparseable_total == 1 and summary.totals()["unparseable"] == 1
    assert parse_msq_report({"multiStageQuery": "odd"}) is None


def test_empty_input_fails_and_keeps_the_day_unless_allowed(fake_druid: FakeDruid, make_client) -> None:
    """Druid's own default would replace the day with tombstones; the plan sends failOnEmptyInsert=true."""
    client = make_client()
    fake_druid.default_plan = TaskPlan(rows_per_bucket=2)
    kept = client.ingest(plan_for(DAY1, ds="msq_empty"), handoff_timeout=20, schedule=FAST_POLL)
    fake_druid.default_plan = TaskPlan(rows_per_bucket=0)
    with pytest.raises(DruidTaskFailedError, match=r"InsertCannotBeEmpty: No rows to insert for dataSource\[msq_emp"):
        client.ingest(plan_for(DAY1, factor=2, ds="msq_empty"), handoff_timeout=20, schedule=FAST_POLL)
    assert sql_posts(fake_druid)[-1].json["context"]["failOnEmptyInsert"] is True
    assert rows_served(fake_druid, "msq_empty", "2026-11-01") == 2  # the day kept its data
    allowed = build_msq_plan(STATEMENT, intervals=[DAY1], datasource="msq_empty", variables={"factor": 3},
                             allow_empty=True)
    assert allowed.context["failOnEmptyInsert"] is False
    emptied = client.ingest(allowed, handoff_timeout=20, allow_empty=True, schedule=FAST_POLL)
    assert emptied.handoff is not None and emptied.handoff.version != kept.handoff.version
    assert rows_served(fake_druid, "msq_empty", "2026-11-01") == 0  # tombstones: the day is empty now


def test_recorded_duplicate_answer_is_a_duplicate_not_a_retry() -> None:
    """The exact 500 Druid 33 + MSQ gave for a second POST with the same sqlQueryId (RECORDED.md §MSQ)."""
    from druid_ingest.wire._http import Request, Response, classify

    text = ('{"taskId":"msq_raw_probe_1","state":"FAILED","error":{"error":"druidException","errorCode":"general",'
            '"persona":"DEVELOPER","category":"UNCATEGORIZED","errorMessage":"org.apache.druid.rpc.'
            'HttpResponseException: Server error [400 Bad Request]; body: {\\"error\\":\\"druidException\\",'
            '\\"errorCode\\":\\"entryAlreadyExists\\",\\"persona\\":\\"USER\\",\\"category\\":\\"INVALID_INPUT\\",'
            '\\"errorMessage\\":\\"Task[query-msq_raw_probe_1] already exists\\",\\"context\\":{}}","context":{}}}')
    resp = Response(500, text.encode(), {"Content-Type": "application/json"}, "http://r/druid/v2/sql/task", "POST")
    assert classify(resp) == "ok"
    with pytest.raises(DuplicateTaskIdError) as dup:
        parse_sql_task(resp, Request("POST", "broker", "/druid/v2/sql/task"))
    assert dup.value.task_id == "query-msq_raw_probe_1"
