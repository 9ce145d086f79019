"""ioConfig and tuningConfig checks, including the cross-field rules Druid enforces at submit (druid-contract
§batch-rules).

Kept apart from the dataSchema checks so each file stays small; the rules mirror
``AbstractTask.computeIngestionMode``, ``AbstractBatchIndexTask.isGuaranteedRollup`` and the
``ParallelIndexTuningConfig`` constructor.
"""

from __future__ import annotations

from typing import Any

from druid_ingest.planning.spec import known_keys as kk
from druid_ingest.planning.spec._collect import Collector, json_type
from druid_ingest.planning.spec.jackson import Invalid, read_int

_INTERVALS_PATH = "spec.dataSchema.granularitySpec.intervals"


def _check_section_type(section: dict[str, Any], path: str, task_type: str | None, c: Collector) -> None:
    """``ioConfig.type`` / ``tuningConfig.type`` must repeat the task type."""
    value = section.get("type")
    if task_type is not None:
        if value != task_type:
            c.add(f"{path}.type", "must match the task type", value=value, valid=repr(task_type))
    elif value not in kk.TASK_TYPES:
        c.add(f"{path}.type", "must be a native batch type", value=value, valid=" or ".join(kk.TASK_TYPES))


def check_io_config(io: dict[str, Any], task_type: str | None, intervals: list[Any] | None, c: Collector) -> bool:
    """Check ``spec.ioConfig``; return whether it appends (for the rollup cross-check).

    ``intervals`` is None when unknown (already reported malformed): interval cross-checks are skipped.
    """
    path = "spec.ioConfig"
    c.unknown_keys(io, path, kk.IO_CONFIG_KEYS)
    _check_section_type(io, path, task_type, c)
    source = c.obj(io, "inputSource", f"{path}.inputSource")
    source_type = None
    if source is not None:
        source_type = source.get("type")
        if not isinstance(source_type, str) or not source_type:
            c.add(
                f"{path}.inputSource.type",
                "is required",
                value=source_type,
                valid="an input source type such as s3, google, azureStorage, local, http, hdfs, inline, druid",
            )
    if not (isinstance(source_type, str) and source_type in kk.FORMATLESS_INPUT_SOURCES):
        fmt = c.obj(io, "inputFormat", f"{path}.inputFormat")
        if fmt is not None and (not isinstance(fmt.get("type"), str) or not fmt.get("type")):
            c.add(
                f"{path}.inputFormat.type",
                "is required",
                value=fmt.get("type"),
                valid="an input format such as json, csv, tsv, parquet, orc, avro_ocf",
            )
    append = c.boolean(io, "appendToExisting", f"{path}.appendToExisting")
    drop = c.boolean(io, "dropExisting", f"{path}.dropExisting")
    if append and drop:
        c.add(
            f"{path}.dropExisting",
            "Cannot simultaneously replace and append to existing segments",
            value=True,
            valid="dropExisting: true with appendToExisting: false (replace), or the reverse (append)",
        )
    elif drop and intervals is not None and not intervals:
        c.add(
            _INTERVALS_PATH,
            "must be a non-empty array when dropExisting is true (Druid: GranularitySpec's "
            "intervals cannot be empty when using replace)",
            value=intervals or None,
            valid='the intervals to replace, e.g. ["2026-01-01/2026-01-02"]',
        )
    return bool(append)


def check_tuning_config(
    tuning: dict[str, Any] | None, task_type: str | None, intervals: list[Any] | None, append: bool, c: Collector
) -> None:
    """Check ``spec.tuningConfig``: type, subtask counts, partitionsSpec and the perfect-rollup rules.

    ``tuning`` None means absent (or null): Druid then uses the tuningConfig defaults (no perfect rollup, a
    dynamic partitionsSpec), and the cross-field rules still run against those defaults."""
    path = "spec.tuningConfig"
    if tuning is None:
        tuning = {}
    else:
        c.unknown_keys(tuning, path, kk.TUNING_CONFIG_KEYS, ignore=kk.STREAMING_ONLY_TUNING_KEYS)
        _check_section_type(tuning, path, task_type, c)
    for key in ("maxNumConcurrentSubTasks", "maxNumSubTasks", "maxNumSegmentsToMerge", "totalNumMergeTasks"):
        c.positive_int(tuning, key, f"{path}.{key}")
    if "maxNumSubTasks" in tuning and "maxNumConcurrentSubTasks" in tuning:
        c.add(
            f"{path}.maxNumSubTasks",
            "cannot be used together with maxNumConcurrentSubTasks",
            value=tuning["maxNumSubTasks"],
            valid="only maxNumConcurrentSubTasks (maxNumSubTasks is deprecated)",
        )
    rollup = c.boolean(tuning, "forceGuaranteedRollup", f"{path}.forceGuaranteedRollup")
    partitions = None
    if tuning.get("partitionsSpec") is not None:  # null is absent: Druid applies its default
        partitions = c.obj(tuning, "partitionsSpec", f"{path}.partitionsSpec", required=False)
    # absent partitionsSpec: Druid defaults to hashed under perfect rollup and to dynamic otherwise
    # (IndexTuningConfig.getGivenOrDefaultPartitionsSpec), so both rollup rules below hold by construction
    ps_type = _check_partitions_spec(partitions, c) if partitions is not None else None
    ps_path = f"{path}.partitionsSpec"
    if rollup:
        if ps_type is not None and ps_type not in kk.PERFECT_ROLLUP_PARTITIONS:
            c.add(
                f"{ps_path}.type",
                f"{ps_type} cannot be used for perfect rollup (forceGuaranteedRollup: true)",
                value=ps_type,
                valid=", ".join(kk.PERFECT_ROLLUP_PARTITIONS),
            )
        if intervals is not None and not intervals:
            c.add(
                _INTERVALS_PATH,
                "must be a non-empty array when forceGuaranteedRollup is true",
                value=intervals or None,
                valid='bounded intervals, e.g. ["2026-01-01/2026-01-02"]',
            )
        if append:
            c.add(
                "spec.ioConfig.appendToExisting",
                "Perfect rollup cannot be guaranteed when appending to existing dataSources",
                value=True,
                valid="false, or forceGuaranteedRollup: false with a dynamic partitionsSpec",
            )
    elif ps_type is not None and ps_type != "dynamic":
        c.add(
            f"{ps_path}.type",
            f"a {ps_type} partitionsSpec needs forceGuaranteedRollup: true "
            "(DynamicPartitionsSpec must be used for best-effort rollup)",
            value=ps_type,
            valid="dynamic, or set spec.tuningConfig.forceGuaranteedRollup to true",
        )


def _check_partitions_spec(ps: dict[str, Any], c: Collector) -> str | None:
    """Check one partitionsSpec; return its type when known."""
    path = "spec.tuningConfig.partitionsSpec"
    ps_type = ps.get("type")
    if not isinstance(ps_type, str) or ps_type not in kk.PARTITIONS_SPEC_KEYS:
        c.add(f"{path}.type", "unknown partitionsSpec type", value=ps_type, valid=", ".join(kk.PARTITIONS_SPEC_KEYS))
        return None
    c.unknown_keys(ps, path, kk.PARTITIONS_SPEC_KEYS[ps_type])
    target, max_rows = ps.get("targetRowsPerSegment"), ps.get("maxRowsPerSegment")
    if ps_type == "single_dim":  # legacy aliases still accepted by SingleDimensionPartitionsSpec
        target = target if target is not None else ps.get("targetPartitionSize")
        max_rows = max_rows if max_rows is not None else ps.get("maxPartitionSize")
    if ps_type == "range":
        dims = ps.get("partitionDimensions")
        if not isinstance(dims, list) or not dims or not all(isinstance(d, str) and d for d in dims):
            c.add(
                f"{path}.partitionDimensions",
                "must be a non-empty array of dimension names for range",
                value=dims,
                valid='e.g. ["country"]',
            )
    elif ps_type == "single_dim":
        dim = ps.get("partitionDimension")
        if not isinstance(dim, str) or not dim:
            c.add(
                f"{path}.partitionDimension",
                "is required for single_dim",
                value=dim,
                valid='a dimension name, e.g. "country" (or use type range with partitionDimensions)',
            )
    elif ps_type == "hashed" and ps.get("numShards") is not None and (target is not None or max_rows is not None):
        c.add(
            f"{path}.numShards",
            "cannot be combined with targetRowsPerSegment/maxRowsPerSegment",
            value=ps["numShards"],
            valid="either numShards or targetRowsPerSegment",
        )
    if ps_type in ("range", "single_dim") and (target is None) == (max_rows is None):
        c.add(
            f"{path}.targetRowsPerSegment",
            "exactly one of targetRowsPerSegment or maxRowsPerSegment must be set for " + ps_type,
            value=target,
            valid="targetRowsPerSegment (recommended, e.g. 5000000) or maxRowsPerSegment",
        )
    elif ps_type == "hashed" and target is not None and max_rows is not None:
        c.add(
            f"{path}.targetRowsPerSegment",
            "cannot be combined with maxRowsPerSegment",
            value=target,
            valid="only one of targetRowsPerSegment or maxRowsPerSegment",
        )
    for key in ("targetRowsPerSegment", "maxRowsPerSegment", "numShards"):
        value = ps.get(key)
        read = read_int(value)
        if isinstance(read, Invalid) or (read is not None and read < 1):
            c.add(
                f"{path}.{key}",
                f"must be a positive integer, not {json_type(value)} {value!r}",
                valid="an integer >= 1",
            )
    return ps_type if isinstance(ps_type, str) else None
