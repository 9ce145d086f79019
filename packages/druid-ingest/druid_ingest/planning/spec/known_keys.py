"""Keys Druid's native batch task understands, level by level.

Druid deserializes specs with ``FAIL_ON_UNKNOWN_PROPERTIES=false``: a misspelled key is silently ignored and
its default applies (``dropExisitng`` means "don't drop"). These lists let pre-flight validation flag such keys
and suggest the intended one. Sources: ``docs/ingestion/native-batch.md``, ``ingestion-spec.md``,
``ParallelIndexTuningConfig`` / ``IndexTask.IndexTuningConfig`` constructors (Druid 30-35).
"""

from __future__ import annotations

__all__ = [
    "DATA_SCHEMA_KEYS",
    "DEPRECATED_TUNING_KEYS",
    "DIMENSIONS_SPEC_KEYS",
    "FIELD_AGGREGATORS",
    "FORMATLESS_INPUT_SOURCES",
    "GRANULARITIES",
    "GRANULARITY_SPEC_KEYS",
    "GRANULARITY_SPEC_TYPES",
    "IO_CONFIG_KEYS",
    "NON_SPLITTABLE_INPUT_SOURCES",
    "PARTITIONS_SPEC_KEYS",
    "PERFECT_ROLLUP_PARTITIONS",
    "SPEC_KEYS",
    "STREAMING_ONLY_TUNING_KEYS",
    "TASK_KEYS",
    "TASK_TYPES",
    "TIMESTAMP_SPEC_KEYS",
    "TUNING_CONFIG_KEYS",
]

TASK_TYPES: tuple[str, ...] = ("index_parallel", "index")

TASK_KEYS: frozenset[str] = frozenset({"type", "id", "spec", "context", "resource", "dataSource", "groupId"})

SPEC_KEYS: frozenset[str] = frozenset({"dataSchema", "ioConfig", "tuningConfig"})

DATA_SCHEMA_KEYS: frozenset[str] = frozenset(
    {
        "dataSource",
        "timestampSpec",
        "dimensionsSpec",
        "metricsSpec",
        "granularitySpec",
        "transformSpec",
        "projections",
        "parser",  # legacy (pre-inputFormat)
    }
)

TIMESTAMP_SPEC_KEYS: frozenset[str] = frozenset({"column", "format", "missingValue"})

DIMENSIONS_SPEC_KEYS: frozenset[str] = frozenset(
    {
        "dimensions",
        "dimensionExclusions",
        "spatialDimensions",
        "includeAllDimensions",
        "useSchemaDiscovery",
        "forceSegmentSortByTime",
    }
)

GRANULARITY_SPEC_KEYS: frozenset[str] = frozenset(
    {"type", "segmentGranularity", "queryGranularity", "rollup", "intervals"}
)

IO_CONFIG_KEYS: frozenset[str] = frozenset(
    {"type", "inputSource", "inputFormat", "appendToExisting", "dropExisting", "firehose"}
)

TUNING_CONFIG_KEYS: frozenset[str] = frozenset(
    {
        "type",
        "maxRowsInMemory",
        "maxBytesInMemory",
        "skipBytesInMemoryOverheadCheck",
        "maxColumnsToMerge",
        "maxTotalRows",
        "maxRowsPerSegment",
        "targetPartitionSize",
        "numShards",
        "partitionDimensions",
        "splitHintSpec",
        "partitionsSpec",
        "indexSpec",
        "indexSpecForIntermediatePersists",
        "appendableIndexSpec",
        "maxPendingPersists",
        "forceGuaranteedRollup",
        "reportParseExceptions",
        "pushTimeout",
        "segmentWriteOutMediumFactory",
        "maxNumConcurrentSubTasks",
        "maxNumSubTasks",
        "maxRetry",
        "maxNumSegmentsToMerge",
        "totalNumMergeTasks",
        "taskStatusCheckPeriodMs",
        "chatHandlerTimeout",
        "chatHandlerNumRetries",
        "awaitSegmentAvailabilityTimeoutMillis",
        "maxParseExceptions",
        "maxSavedParseExceptions",
        "logParseExceptions",
        "maxAllowedLockCount",
        "numPersistThreads",
        "maxInputSegmentBytesPerTask",
        "useMaxMemoryEstimates",
        "basePersistDirectory",
    }
)

#: streaming-ingestion (Kafka/Kinesis) tuning keys: accepted, ignored by batch, reported only as warnings
STREAMING_ONLY_TUNING_KEYS: frozenset[str] = frozenset(
    {
        "intermediatePersistPeriod",
        "intermediateHandoffPeriod",
        "handoffConditionTimeout",
        "resetOffsetAutomatically",
        "workerThreads",
        "chatThreads",
        "httpTimeout",
        "shutdownTimeout",
        "offsetFetchPeriod",
        "recordBufferSize",
        "recordBufferOfferTimeout",
        "fetchThreads",
    }
)

#: tuningConfig keys Druid still reads but documents as deprecated, with the replacement. Pre-flight warns only
#: where Druid ignores one (``_deprecations``): otherwise it maps onto the default partitionsSpec unchanged
DEPRECATED_TUNING_KEYS: dict[str, str] = {
    "maxNumSubTasks": "maxNumConcurrentSubTasks",
    "numShards": "partitionsSpec {type: hashed, numShards}",
    "maxRowsPerSegment": "partitionsSpec.maxRowsPerSegment",
    "maxTotalRows": "partitionsSpec {type: dynamic, maxTotalRows}",
    "targetPartitionSize": "partitionsSpec.targetRowsPerSegment",
    "partitionDimensions": "partitionsSpec.partitionDimensions",
}

#: partitionsSpec keys per partitionsSpec type
PARTITIONS_SPEC_KEYS: dict[str, frozenset[str]] = {
    "dynamic": frozenset({"type", "maxRowsPerSegment", "maxTotalRows"}),
    "hashed": frozenset(
        {"type", "numShards", "targetRowsPerSegment", "maxRowsPerSegment", "partitionDimensions", "partitionFunction"}
    ),
    "single_dim": frozenset(
        {
            "type",
            "partitionDimension",
            "targetRowsPerSegment",
            "maxRowsPerSegment",
            "assumeGrouped",
            "targetPartitionSize",
            "maxPartitionSize",
        }
    ),
    "range": frozenset({"type", "partitionDimensions", "targetRowsPerSegment", "maxRowsPerSegment", "assumeGrouped"}),
}

#: partitionsSpec types that give perfect rollup (forceGuaranteedRollup: true)
PERFECT_ROLLUP_PARTITIONS: tuple[str, ...] = ("hashed", "single_dim", "range")

GRANULARITY_SPEC_TYPES: tuple[str, ...] = ("uniform", "arbitrary")

GRANULARITIES: tuple[str, ...] = (
    "ALL",
    "NONE",
    "SECOND",
    "MINUTE",
    "FIVE_MINUTE",
    "TEN_MINUTE",
    "FIFTEEN_MINUTE",
    "THIRTY_MINUTE",
    "HOUR",
    "SIX_HOUR",
    "EIGHT_HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
)

#: aggregators that read one input column: they need ``fieldName`` (or an ``expression``)
FIELD_AGGREGATORS: frozenset[str] = frozenset(
    {f"{kind}{op}" for kind in ("long", "double", "float") for op in ("Sum", "Min", "Max")}
)

#: input sources whose splits Druid cannot distribute: always sequential
NON_SPLITTABLE_INPUT_SOURCES: frozenset[str] = frozenset({"inline"})

#: input sources that read Druid segments or a database, so they take no inputFormat
FORMATLESS_INPUT_SOURCES: frozenset[str] = frozenset({"druid", "sql"})
