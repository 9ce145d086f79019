"""Dagster metadata from the core's values, under ``druid/`` keys (Dagster's metadata-set classes are private).

``druid/handoff_target`` is how the handoff check finds what to wait for: the asset records the core's
``HandoffTarget`` (task id, datasource, intervals, version floor and lock ceiling) with its materialization,
and the check rebuilds it from the partition's latest materialization. No second lookup, no guessing.
"""

from typing import Any

import dagster as dg
from druid_ingest.api import HandoffResult, HandoffTarget
from druid_ingest.ops import SubmitOutcome, TaskOutcome
from druid_ingest.planning import Plan

__all__ = [
    "TARGET_KEY", "TASK_ID_KEY", "handoff_metadata", "submit_metadata", "target_metadata", "target_of", "task_metadata",
]

TASK_ID_KEY = "druid/task_id"
TARGET_KEY = "druid/handoff_target"


def submit_metadata(plan: Plan, outcome: SubmitOutcome, url: str) -> dict[str, Any]:
    """Which Druid task this step drives, and whether it was submitted or adopted."""
    return {
        TASK_ID_KEY: outcome.task_id,
        "druid/task_url": dg.MetadataValue.url(url),
        "druid/submit": outcome.action,
        "druid/attempt": outcome.attempt,
        "druid/datasource": plan.datasource,
        "druid/intervals": ", ".join(plan.intervals),
        "druid/mode": plan.mode,
        **({"druid/input_probe": outcome.input_probe} if outcome.input_probe is not None else {}),
    }


def task_metadata(task: TaskOutcome) -> dict[str, Any]:
    """Row counts (the report's buildSegments totals), Druid's own task duration, segments published."""
    found: dict[str, Any] = {}
    if task.status is not None and task.status.duration_ms is not None and task.status.duration_ms >= 0:
        found["druid/duration_s"] = round(task.status.duration_ms / 1000, 3)
    report = task.report
    if report is None:
        return found
    if report.row_stats:
        totals = report.totals()
        found.update({
            "druid/rows_processed": totals["processed"],
            "druid/rows_with_errors": totals["processedWithError"],
            "druid/rows_unparseable": totals["unparseable"],
            "druid/rows_thrown_away": totals["thrownAway"],
        })
    if report.segments_published is not None:
        found["druid/segments_published"] = report.segments_published
    return found


def handoff_metadata(result: HandoffResult) -> dict[str, Any]:
    """One gate verdict: state (loaded/pending/superseded/nothing/never), segments served of expected, why."""
    found: dict[str, Any] = {
        "druid/handoff_state": result.state,
        "druid/handoff_detail": result.detail,
        "druid/segments_expected": result.expected,
        "druid/segments_served": result.served,
    }
    if result.version:
        found["druid/version"] = result.version
    if result.superseded_by:
        found["druid/superseded_by"] = result.superseded_by
    return found


def target_metadata(target: HandoffTarget) -> dict[str, Any]:
    return {TARGET_KEY: dg.MetadataValue.json(target.to_dict())}


def target_of(metadata: dict[str, dg.MetadataValue]) -> HandoffTarget | None:
    """The HandoffTarget a materialization recorded, or None (materialized by something else)."""
    value = metadata.get(TARGET_KEY)
    data = getattr(value, "data", None)
    return HandoffTarget.from_dict(data) if isinstance(data, dict) else None
