"""What a task spec implies for the cluster: mode, parallelism and task slots, read without validating.

The operator needs these before submitting (to log what will happen, to size pools, to refuse a parallel task on
a one-slot cluster, which deadlocks: the supervisor holds the only slot). Rules from Druid's
``ParallelIndexSupervisorTask.isParallelMode`` and ``AbstractTask.computeIngestionMode`` (druid-contract §batch-rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from druid_ingest.planning.spec._shape import as_task_shape
from druid_ingest.planning.spec.jackson import read_int, truthy
from druid_ingest.planning.spec.known_keys import NON_SPLITTABLE_INPUT_SOURCES

__all__ = ["IngestionMode", "SpecFacts", "spec_facts", "task_slots"]

IngestionMode = Literal["REPLACE", "APPEND", "REPLACE_LEGACY"]
_RANGE_TYPES = ("range", "single_dim")


@dataclass(frozen=True)
class SpecFacts:
    """Facts about one task spec; fields are None/defaults where the spec does not say."""

    task_type: str | None
    datasource: str | None
    intervals: list[str] = field(default_factory=list)
    input_source_type: str | None = None
    append: bool = False
    drop_existing: bool = False
    ingestion_mode: IngestionMode = "REPLACE_LEGACY"
    forces_rollup: bool = False
    partitions_type: str | None = None
    max_subtasks: int = 1
    parallel: bool = False
    task_slots: int = 1


def _section(spec: Any, *keys: str) -> dict[str, Any]:
    value = spec
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def _int(value: Any, default: int) -> int:
    read = read_int(value)  # as Druid's Jackson reads it: "4" and 4.0 are 4
    return read if isinstance(read, int) else default


def spec_facts(spec: dict[str, Any]) -> SpecFacts:
    """Read the facts from a task spec (or a bare ingestion spec); tolerates gaps and odd types."""
    spec = as_task_shape(spec)
    task_type = spec.get("type") if isinstance(spec, dict) else None
    data_schema = _section(spec, "spec", "dataSchema")
    io_config = _section(spec, "spec", "ioConfig")
    tuning = _section(spec, "spec", "tuningConfig")
    intervals = _section(data_schema, "granularitySpec").get("intervals")
    source_type = _section(io_config, "inputSource").get("type")
    partitions_type = _section(tuning, "partitionsSpec").get("type")
    append = truthy(io_config.get("appendToExisting"))  # "true" is an append, as Druid reads it
    drop = truthy(io_config.get("dropExisting"))
    mode: IngestionMode = "APPEND" if append else "REPLACE" if drop else "REPLACE_LEGACY"
    k = _int(tuning.get("maxNumConcurrentSubTasks"), _int(tuning.get("maxNumSubTasks"), 1))
    splittable = isinstance(source_type, str) and source_type not in NON_SPLITTABLE_INPUT_SOURCES
    needed = 1 if partitions_type in _RANGE_TYPES else 2
    parallel = task_type == "index_parallel" and splittable and k >= needed
    datasource = data_schema.get("dataSource")
    return SpecFacts(
        task_type=task_type if isinstance(task_type, str) else None,
        datasource=datasource if isinstance(datasource, str) else None,
        intervals=[i for i in intervals if isinstance(i, str)] if isinstance(intervals, list) else [],
        input_source_type=source_type if isinstance(source_type, str) else None,
        append=append,
        drop_existing=drop,
        ingestion_mode=mode,
        forces_rollup=truthy(tuning.get("forceGuaranteedRollup")),
        partitions_type=partitions_type if isinstance(partitions_type, str) else None,
        max_subtasks=k,
        parallel=parallel,
        # parallel: the supervisor plus up to k concurrent subtasks; sequential runs in the supervisor's slot
        task_slots=k + 1 if parallel else 1,
    )


def task_slots(spec: dict[str, Any]) -> int:
    """Peak task slots the spec can occupy: k+1 in parallel mode, 1 when Druid runs it sequentially."""
    return spec_facts(spec).task_slots
