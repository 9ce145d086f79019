"""Kill on the Plan seam: Druid's ``kill`` task for one interval, checked before any HTTP with Druid's own
constructor rules, adopted on retry, and never gated on handoff (it publishes nothing). Against the fake Druid:
the unused segments of the interval go, the used ones stay."""

from __future__ import annotations

import pytest
from druid_ingest.errors import SpecValidationError
from druid_ingest.planning import build_kill_plan
from druid_ingest.testing import FakeDruid

from tests.druid_ingest.sample_specs import day_spec

DS = "events_web"


def test_every_problem_is_named_before_any_http():
    with pytest.raises(SpecValidationError, match="invalid kill request") as refused:
        build_kill_plan("", "last week", batch_size=0, limit=True)
    assert [p.path for p in refused.value.problems] == ["datasource", "interval", "batch_size", "limit"]


def test_the_id_is_pinned_and_the_task_is_druids_kill():
    plan = build_kill_plan(DS, "2026-11-01/2026-11-03", batch_size=50)
    assert plan.base_task_id == build_kill_plan(DS, "2026-11-01T00:00:00Z/2026-11-03T00:00:00Z",
                                                batch_size=50).base_task_id
    assert plan.base_task_id.startswith(f"kill_{DS}_20261101-20261103_")
    assert (plan.kind, plan.mode, plan.publishes, plan.append, plan.probes_input) == ("kill", "KILL", False, False,
                                                                                      False)
    body = plan.submit_request(plan.base_task_id).json_body
    assert body == {"type": "kill", "dataSource": DS, "interval": "2026-11-01T00:00:00.000Z/2026-11-03T00:00:00.000Z",
                    "batchSize": 50, "id": plan.base_task_id}


@pytest.fixture()
def fake(fake_druid_factory) -> FakeDruid:
    return fake_druid_factory(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0)


def test_a_kill_takes_the_unused_day_leaves_the_used_one_and_a_retry_adopts_it(fake: FakeDruid, make_client):
    client = make_client(fake.url)
    for day in ("2026-11-01", "2026-11-02"):
        client.ingest(day_spec(day), task_timeout=20, handoff_timeout=20)
    kept = {s for s in fake.segment_ids(DS) if s.startswith(f"{DS}_2026-11-02")}
    assert len(kept) == 1 and len(fake.segment_ids(DS)) == 2
    assert fake.mark_unused(DS, "2026-11-01/2026-11-02") == 1  # the retention drop of the first day
    plan = build_kill_plan(DS, "2026-11-01/2026-11-03")
    result = client.ingest(plan, task_timeout=20, handoff_timeout=20)
    assert result.status.state == "SUCCESS" and result.handoff is None  # no gate: a kill publishes nothing
    again = client.ensure_submitted(plan)
    assert (again.action, again.task_id) == ("adopted", result.submit.task_id)
    assert fake.segment_ids(DS) == kept  # the unused day is gone from the metadata store, the used day untouched
