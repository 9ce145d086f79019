"""Checked by mypy (the README's test command), not run: both clients' methods have exact types.

``DruidClient.status`` is a ``TaskStatus``; ``AsyncDruidClient.status`` an awaitable of one. If a facade method
lost its overloads, or a client its mode, ``assert_type`` would fail the type check.
"""

from __future__ import annotations

from typing import Any

from druid_ingest.api._models import (
    ClusterCapacity,
    HandoffResult,
    HandoffTarget,
    TaskStatus,
)
from druid_ingest.api._report_summary import ReportSummary
from druid_ingest.api._sql_endpoints import SqlResult
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._outcomes import HandoffOutcome, IngestionOutcome, IngestResult, SubmitOutcome, TaskOutcome
from druid_ingest.ops.auto_compaction import AutoCompactionPause, AutoCompactionResume
from druid_ingest.wire._config import ClusterConfig
from typing_extensions import assert_type


def sync_calls(client: DruidClient, target: HandoffTarget, spec: dict[str, Any]) -> None:
    assert_type(client.status("x"), TaskStatus)
    assert_type(client.status_or_none("x"), TaskStatus | None)
    assert_type(client.bulk_status(["x"]), dict[str, TaskStatus])
    assert_type(client.report_summary("x"), ReportSummary | None)
    assert_type(client.capacity(), ClusterCapacity)
    assert_type(client.sql("SELECT 1"), list[dict[str, Any]])
    assert_type(client.sql_table("SELECT 1", None, {"priority": 1}), SqlResult)
    assert_type(client.ensure_submitted(spec), SubmitOutcome)
    assert_type(client.ingest(spec), IngestResult)
    assert_type(client.wait_for_task("x", 10), TaskStatus)
    assert_type(client.watch_task("x", 10), TaskOutcome)
    assert_type(client.check_handoff(target), HandoffResult)
    assert_type(client.watch_handoff(target, 10), HandoffOutcome)
    assert_type(client.watch_ingestion("x", "ds", [], False, task_deadline=0, handoff_timeout=None), IngestionOutcome)
    assert_type(client.pause_auto_compaction("ds"), AutoCompactionPause)
    assert_type(client.resume_auto_compaction("ds", None), AutoCompactionResume)


async def async_calls(client: AsyncDruidClient, target: HandoffTarget, spec: dict[str, Any]) -> None:
    assert_type(await client.status("x"), TaskStatus)
    assert_type(await client.sql_table("SELECT 1"), SqlResult)
    assert_type(await client.ensure_submitted(spec), SubmitOutcome)
    assert_type(await client.wait_for_handoff(target, 10), HandoffResult)
    assert_type(await client.watch_task("x", 10), TaskOutcome)
    assert_type(await client.pause_auto_compaction("ds"), AutoCompactionPause)
    assert_type(await client.resume_auto_compaction("ds", {"datasource": "ds"}), AutoCompactionResume)


def make(config: ClusterConfig) -> tuple[DruidClient, AsyncDruidClient]:
    return DruidClient(config), AsyncDruidClient(config)
