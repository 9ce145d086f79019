"""Small task-spec builder for tests against the fake (or a real) Druid."""

from __future__ import annotations

from typing import Any

__all__ = ["index_parallel_spec"]


def index_parallel_spec(
    datasource: str = "wiki",
    intervals: list[str] | None = None,
    *,
    task_id: str | None = None,
    segment_granularity: str = "DAY",
    max_subtasks: int = 1,
    append: bool = False,
    drop_existing: bool = False,
    await_ms: int = 0,
    tuning: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A minimal valid ``index_parallel`` task with an inline input source."""
    spec: dict[str, Any] = {
        "type": "index_parallel",
        "spec": {
            "dataSchema": {
                "dataSource": datasource,
                "timestampSpec": {"column": "ts", "format": "iso"},
                "dimensionsSpec": {"dimensions": ["page", "user"]},
                "metricsSpec": [{"type": "count", "name": "count"}],
                "granularitySpec": {
                    "type": "uniform",
                    "segmentGranularity": segment_granularity,
                    "queryGranularity": "NONE",
                    "rollup": False,
                    "intervals": ["2024-01-01/2024-01-02"] if intervals is None else intervals,
                },
            },
            "ioConfig": {
                "type": "index_parallel",
                "inputSource": {"type": "inline", "data": '{"ts":"2024-01-01T00:00:00Z","page":"a"}'},
                "inputFormat": {"type": "json"},
                "appendToExisting": append,
                "dropExisting": drop_existing,
            },
            "tuningConfig": {
                "type": "index_parallel",
                "maxNumConcurrentSubTasks": max_subtasks,
                **({"awaitSegmentAvailabilityTimeoutMillis": await_ms} if await_ms else {}),
                **(tuning or {}),
            },
        },
    }
    if task_id is not None:
        spec["id"] = task_id
    return spec
