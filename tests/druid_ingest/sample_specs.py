"""Small valid specs for the behavioural suites."""

from __future__ import annotations

import copy
from typing import Any

BASE: dict[str, Any] = {
    "type": "index_parallel",
    "spec": {
        "dataSchema": {
            "dataSource": "events_web",
            "timestampSpec": {"column": "event_ts", "format": "iso"},
            "dimensionsSpec": {"dimensions": ["country", "device", {"name": "page_id", "type": "long"}]},
            "metricsSpec": [
                {"type": "count", "name": "rows"},
                {"type": "longSum", "name": "bytes", "fieldName": "resp_bytes"},
            ],
            "granularitySpec": {
                "type": "uniform",
                "segmentGranularity": "HOUR",
                "queryGranularity": "MINUTE",
                "rollup": True,
                "intervals": ["2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"],
            },
        },
        "ioConfig": {
            "type": "index_parallel",
            "inputSource": {"type": "local", "baseDir": "/data/events/2026-11-01", "filter": "*.json"},
            "inputFormat": {"type": "json"},
            "appendToExisting": False,
            "dropExisting": True,
        },
        "tuningConfig": {
            "type": "index_parallel",
            "maxNumConcurrentSubTasks": 1,
            "forceGuaranteedRollup": True,
            "partitionsSpec": {"type": "range", "partitionDimensions": ["country"], "targetRowsPerSegment": 5000000},
        },
    },
}


def day_spec(
    day: str = "2026-11-01", datasource: str = "events_web", k: int = 1, dynamic: bool = False, **io: Any
) -> dict[str, Any]:
    """The events spec for one day (``YYYY-MM-DD``), DAY segments to keep the fake's segment count small.

    ``dynamic`` swaps range partitioning (perfect rollup) for dynamic: Druid 33 writes reports for failed
    dynamic tasks and tombstones for their empty buckets, but neither for range (dev/druid/RECORDED.md).
    """
    spec = copy.deepcopy(BASE)
    start = day
    end_day = int(day[-2:]) + 1
    end = f"{day[:-2]}{end_day:02d}"
    schema = spec["spec"]["dataSchema"]
    schema["dataSource"] = datasource
    schema["granularitySpec"]["intervals"] = [f"{start}T00:00:00Z/{end}T00:00:00Z"]
    schema["granularitySpec"]["segmentGranularity"] = "DAY"
    spec["spec"]["ioConfig"]["inputSource"]["baseDir"] = f"/data/events/{day}"
    spec["spec"]["ioConfig"].update(io)
    spec["spec"]["tuningConfig"]["maxNumConcurrentSubTasks"] = k
    if dynamic:
        spec["spec"]["tuningConfig"].update(forceGuaranteedRollup=False, partitionsSpec={"type": "dynamic"})
    return spec


def guide_spec() -> dict[str, Any]:
    """The integration guide's example spec: the events spec read from S3, four subtasks, tuned persists."""
    spec = copy.deepcopy(BASE)
    spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = ["2026-07-16T00:00:00Z/2026-07-17T00:00:00Z"]
    spec["spec"]["ioConfig"]["inputSource"] = {"type": "s3", "prefixes": ["s3://lake/events/web/2026-07-16/"]}
    spec["spec"]["tuningConfig"].update(
        maxRowsInMemory=1000000, maxNumConcurrentSubTasks=4, intermediatePersistPeriod="PT10M"
    )
    return spec


def interval_of(spec: dict[str, Any]) -> list[str]:
    return list(spec["spec"]["dataSchema"]["granularitySpec"]["intervals"])
