"""The seam every kind of Druid work implements (``planning.Plan``): what each plan answers, read by the generic
submit, probe, evidence and gate code instead of asking which class it is."""

from __future__ import annotations

from druid_ingest.planning import Plan, build_plan
from druid_ingest.planning._msq import build_msq_plan

from tests.druid_ingest.planning.test_msq import DAY1, STATEMENT
from tests.druid_ingest.sample_specs import day_spec


def test_a_native_replace_starts_with_its_spec_and_probes_its_input() -> None:
    plan: Plan = build_plan(day_spec(dropExisting=True))
    request = plan.submit_request(plan.base_task_id + "_r1")
    assert (request.method, request.service, request.path) == ("POST", "overlord", "/druid/indexer/v1/task")
    assert request.json_body["id"] == plan.base_task_id + "_r1" and request.json_body["type"] == "index_parallel"
    assert (plan.kind, plan.mode, plan.probes_input, plan.append) == ("native", "REPLACE", True, False)
    assert plan.task_spec is not None and plan.task_spec["spec"]["dataSchema"]["dataSource"] == plan.datasource


def test_a_native_append_is_not_probed() -> None:
    plan: Plan = build_plan(day_spec(appendToExisting=True, dropExisting=False, dynamic=True))
    assert (plan.mode, plan.probes_input, plan.append) == ("APPEND", False, True)


def test_an_msq_statement_starts_as_a_named_sql_task_and_is_not_probed() -> None:
    plan: Plan = build_msq_plan(STATEMENT, intervals=[DAY1], datasource="msq_seam", variables={"factor": 1})
    request = plan.submit_request(plan.base_task_id)
    assert (request.method, request.service, request.path) == ("POST", "broker", "/druid/v2/sql/task")
    assert request.json_body["context"]["sqlQueryId"] == plan.base_task_id.removeprefix("query-")
    assert request.task_id == plan.base_task_id
    assert (plan.kind, plan.mode, plan.probes_input, plan.append, plan.task_spec) == ("msq", "REPLACE", False,
                                                                                     False, None)
