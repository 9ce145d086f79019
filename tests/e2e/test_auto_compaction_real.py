"""Pausing and resuming auto-compaction, decided by a real Druid 33 (compaction supervisors off there, so the
Coordinator's compaction config is the switch): pause deletes it (Druid answers 404), a retried pause returns the
same record from Druid's audit history, resume posts back a config equal to the original, a second resume changes
nothing, and a config re-created meanwhile is left as it is. Datasources of its own per run (``ac_e2e_<ns>``); no
segments needed: Druid keeps compaction configs for datasources that have none."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops.auto_compaction import AutoCompactionPause
from druid_ingest.wire import Request, Response, call

pytestmark = pytest.mark.timeout(120)

CONFIG = "/druid/coordinator/v1/config/compaction"


def _raw(real: DruidClient, method: str, path: str, body: Any = None) -> Response:
    def keep(resp: Response, req: Request) -> Response:
        return resp

    return real._run(call(Request(method, "coordinator", path, json_body=body), keep))  # type: ignore[arg-type]


def _post(real: DruidClient, config: dict[str, Any]) -> dict[str, Any]:
    assert _raw(real, "POST", CONFIG, config).status == 200
    stored = _raw(real, "GET", f"{CONFIG}/{config['dataSource']}")
    assert stored.status == 200
    return dict(stored.json())


@pytest.fixture()
def fresh(real: DruidClient) -> Iterator[Callable[[], str]]:
    """New datasource names; their compaction configs are deleted afterwards (the cluster is shared)."""
    made: list[str] = []

    def name() -> str:
        made.append(f"ac_e2e_{time.time_ns()}")
        return made[-1]

    yield name
    for ds in made:
        _raw(real, "DELETE", f"{CONFIG}/{ds}")


def test_pause_retry_resume_on_druid_33(real: DruidClient, fresh: Callable[[], str]) -> None:
    ds = fresh()
    original = _post(real, {"dataSource": ds, "skipOffsetFromLatest": "P2D",
                            "granularitySpec": {"segmentGranularity": "MONTH"}, "taskContext": {"priority": 25}})
    started = time.monotonic()
    record = real.pause_auto_compaction(ds)
    paused_in = time.monotonic() - started
    assert record.paused == "compaction config" and record.config == original
    assert record.druid_version and record.druid_version.startswith("33.")
    gone = _raw(real, "GET", f"{CONFIG}/{ds}")
    assert gone.status == 404 and "does not exist" in gone.text

    retry = real.pause_auto_compaction(ds)  # a retry after the delete: the same config, from the audit history
    assert retry.config == record.config and retry.recovered_from_history
    assert AutoCompactionPause.from_json(retry.to_json()) == retry

    started = time.monotonic()
    assert real.resume_auto_compaction(ds, record.to_json()).outcome == "resumed"
    resumed_in = time.monotonic() - started
    assert _raw(real, "GET", f"{CONFIG}/{ds}").json() == original
    assert real.resume_auto_compaction(ds, record.to_json()).outcome == "already resumed"
    assert _raw(real, "GET", f"{CONFIG}/{ds}").json() == original
    history = _raw(real, "GET", f"{CONFIG}/{ds}/history").json()
    assert [(h["auditInfo"]["author"], h["compactionConfig"] is None) for h in history] == [
        ("", False), ("druid-ingest", True), ("druid-ingest", False)]
    print(f"pause {paused_in * 1000:.0f} ms, resume {resumed_in * 1000:.0f} ms")


def test_resume_leaves_a_config_recreated_meanwhile_and_a_lost_record_is_recovered(
        real: DruidClient, fresh: Callable[[], str]) -> None:
    ds = fresh()
    original = _post(real, {"dataSource": ds, "skipOffsetFromLatest": "P1D"})
    record = real.pause_auto_compaction(ds)
    theirs = _post(real, {"dataSource": ds, "skipOffsetFromLatest": "P9D"})
    result = real.resume_auto_compaction(ds, record)
    assert result.outcome == "left as is"
    assert _raw(real, "GET", f"{CONFIG}/{ds}").json() == theirs != original

    other = fresh()
    saved = _post(real, {"dataSource": other})
    real.pause_auto_compaction(other)
    assert real.resume_auto_compaction(other, None).outcome == "resumed"  # the record lost: the audit history
    assert _raw(real, "GET", f"{CONFIG}/{other}").json() == saved


def test_nothing_configured_pauses_nothing(real: DruidClient, fresh: Callable[[], str]) -> None:
    ds = fresh()
    record = real.pause_auto_compaction(ds)
    assert record.paused == "nothing configured"
    assert real.resume_auto_compaction(ds, record.to_json()).outcome == "nothing to resume"
    assert _raw(real, "GET", f"{CONFIG}/{ds}").status == 404
