"""Say what a spec is when it is not a native batch task, in one problem, instead of a dozen "unknown key" lines.

A Kafka supervisor spec, a compaction or kill task, or a Hadoop task are valid Druid JSON: checked against the
native batch keys they give a page of misleading problems and never the words that explain them. The same holds
for the ``firehose``/``parser`` specs Druid no longer reads: "timestampSpec is required" hides that the whole
spec shape was removed (druid-contract §spec-kinds).
"""

from __future__ import annotations

from typing import Any

from druid_ingest.errors import SpecProblem

__all__ = ["other_kind_problem"]

_SUPERVISOR_TYPES = {"kafka": "Kafka", "kinesis": "Kinesis", "rabbit": "RabbitMQ", "rabbitStream": "RabbitMQ"}
_SUPERVISOR_FIX = (
    "submit it as a supervisor (POST /druid/indexer/v1/supervisor); this package runs native batch tasks "
    "(index_parallel/index) only"
)

#: task type -> (what it is, what to do instead)
_OTHER_TASKS: dict[str, tuple[str, str]] = {
    "compact": (
        "a compaction task (it rewrites existing segments), not a native batch ingestion",
        "submit it to Druid as it is (POST /druid/indexer/v1/task) or configure auto-compaction on the "
        "Coordinator; for an ingestion use index_parallel",
    ),
    "kill": (
        "a kill task (it permanently deletes unused segments), not an ingestion",
        "submit it to Druid as it is (POST /druid/indexer/v1/task) or enable the Coordinator's auto-kill",
    ),
    "index_hadoop": (
        "a Hadoop-based batch task, not native batch",
        "rewrite it as index_parallel with an ioConfig.inputSource (e.g. hdfs) and inputFormat, or submit it "
        "to Druid as it is",
    ),
    "index_kafka": ("a Kafka indexing task, which a supervisor creates", _SUPERVISOR_FIX),
    "index_kinesis": ("a Kinesis indexing task, which a supervisor creates", _SUPERVISOR_FIX),
    "query_controller": (
        "an MSQ (SQL-based ingestion) controller task",
        "give the SQL statement to DruidMsqIngestOperator (core: build_msq_plan)",
    ),
}

_REMOVED_VALID = (
    "ioConfig.inputSource + ioConfig.inputFormat, and dataSchema.timestampSpec + dataSchema.dimensionsSpec "
    "(Druid's 'Migrate from firehose' guide)"
)


def _obj(parent: dict[str, Any], key: str) -> dict[str, Any]:
    value = parent.get(key)
    return value if isinstance(value, dict) else {}


def _body(spec: dict[str, Any]) -> dict[str, Any]:
    """The ingestion spec: ``spec["spec"]`` in the task shape, the object itself in the bare/flat shape."""
    return _obj(spec, "spec") if isinstance(spec.get("spec"), dict) else spec


def _streaming_kind(spec: dict[str, Any]) -> str | None:
    """'Kafka'/'Kinesis'/... when ``spec`` is a streaming supervisor spec (task or flat legacy shape)."""
    kind = spec.get("type")
    if isinstance(kind, str) and kind in _SUPERVISOR_TYPES:
        return _SUPERVISOR_TYPES[kind]
    io = _obj(_body(spec), "ioConfig")
    io_type = io.get("type")
    if isinstance(io_type, str) and io_type in _SUPERVISOR_TYPES:
        return _SUPERVISOR_TYPES[io_type]
    if "topic" in io or "topicPattern" in io:
        return "Kafka"
    if "stream" in io:
        return "Kinesis"
    return None


def other_kind_problem(spec: dict[str, Any]) -> SpecProblem | None:
    """One problem saying what ``spec`` is and what to do instead, or None for a native batch task."""
    streaming = _streaming_kind(spec)
    if streaming is not None:
        return SpecProblem("$", f"is a {streaming} streaming supervisor spec, not a native batch task",
                           value=spec.get("type"), valid=_SUPERVISOR_FIX)
    kind = spec.get("type")
    if isinstance(kind, str) and kind in _OTHER_TASKS:
        what, fix = _OTHER_TASKS[kind]
        return SpecProblem("type", f"is {what}", value=kind, valid=fix)
    return _removed_shape_problem(spec)


def _removed_shape_problem(spec: dict[str, Any]) -> SpecProblem | None:
    """The firehose/parser shape: Druid removed firehose ingestion in 26.0 (the parser went with it)."""
    body = _body(spec)
    io, ds = _obj(body, "ioConfig"), _obj(body, "dataSchema")
    if io.get("firehose") is not None:
        return SpecProblem(
            "spec.ioConfig.firehose",
            "firehose ingestion was removed in Druid 26.0 (deprecated since 0.17): Druid 26+ cannot run this spec",
            valid=_REMOVED_VALID,
        )
    if ds.get("parser") is not None and ("timestampSpec" not in ds or "inputSource" not in io):
        return SpecProblem(
            "spec.dataSchema.parser",
            "the parser (the firehose-era spec shape) is not read by native batch since firehose ingestion was "
            "removed in Druid 26.0: there is no timestampSpec/inputFormat for Druid to use",
            valid=_REMOVED_VALID,
        )
    return None
