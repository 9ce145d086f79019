"""Task specs, plans and task objects of the fake Druid: parsing/validation as the Overlord does it (druid-contract
§submit, druid-contract §batch-rules)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from druid_ingest.testing.fake_segments import FakeSegment
from druid_ingest.testing.fake_time import buckets, normalize_granularity, parse_interval

__all__ = [
    "DISAPPEARED",
    "TASK_CLASSES",
    "FakeTask",
    "InvalidInputError",
    "ParsedTask",
    "SpecError",
    "TaskPlan",
    "jackson_syntax_error",
    "parse_task",
    "validate_id",
]

_PKG = "org.apache.druid.indexing.common.task"
TASK_CLASSES = {
    "index_parallel": f"{_PKG}.batch.parallel.ParallelIndexSupervisorTask",
    "index": f"{_PKG}.IndexTask",
    "noop": f"{_PKG}.NoopTask",
    "compact": f"{_PKG}.CompactionTask",
    "kill": f"{_PKG}.KillUnusedSegmentsTask",
}
# The "known type ids" of Task on a Druid 33 Coordinator-as-Overlord without streaming/MSQ extensions
# (RECORDED.md §1, unknown task type).
_KNOWN_TYPE_IDS = ["archive", "compact", "index", "index_hadoop", "index_parallel", "index_sub", "kill", "move",
                   "noop", "partial_dimension_cardinality", "partial_dimension_distribution",
                   "partial_index_generate", "partial_index_generic_merge", "partial_range_index_generate",
                   "restore", "single_phase_sub_task"]
_JETTY_SOURCE = "[Source: (org.eclipse.jetty.server.HttpInputOverHTTP); line: {}, column: {}]"


class SpecError(Exception):
    """druid-contract §submit: Jackson mapping/validation failure -> 400 ``{"error": "<first line of the
    message>"}``."""


class InvalidInputError(Exception):
    """druid-contract §submit: a DruidException of category INVALID_INPUT (errorCode ``invalidInput``) -> 400
    druidException."""


#: the Overlord's errorMsg for a task whose worker vanished while it ran (Druid 33, seen after a SIGKILLed Indexer)
DISAPPEARED = "This task disappeared on the worker where it was assigned. See overlord logs for more details."


@dataclass
class TaskPlan:
    """How the next fake task ends. ``duration`` (s of RUNNING) overrides FakeDruid's ``task_duration``.

    ``report_segments_published=False`` writes the report without ``segmentsPublished``, as Druid releases
    before the field existed do. ``failed_after_publish``: the task publishes its segments (COMPLETED in its
    report), then ends FAILED as when its worker dies between the publish commit and the status report (Druid 33:
    "This task disappeared on the worker where it was assigned"; druid-contract §attempts). ``report=False``: the
    task leaves no report (404), as a worker killed before writing it. ``rows_outside``: the input's rows carry the
    day before the spec's first interval (a folder holding another day's file): the sampler answers them with that
    ``__time`` and the task, which drops rows outside its intervals, has none to write (tombstones over a replace).
    """

    outcome: str = "SUCCESS"
    duration: float | None = None
    error_msg: str | None = None
    rows_per_bucket: int = 1
    unparseable: int = 0
    thrown_away: int = 0
    report_segments_published: bool = True
    failed_after_publish: bool = False
    report: bool = True
    rows_outside: bool = False

    def __post_init__(self) -> None:
        if self.outcome not in ("SUCCESS", "FAILED"):
            raise ValueError(f"TaskPlan.outcome must be SUCCESS or FAILED, not {self.outcome!r}")


@dataclass
class ParsedTask:
    type: str
    id: str | None
    group_id: str | None
    datasource: str
    context: dict[str, Any]
    parallel: bool = False
    max_subtasks: int = 1
    segment_granularity: str = "DAY"
    intervals: list[tuple[int, int]] = field(default_factory=list)
    append: bool = False
    drop_existing: bool = False
    partitions_type: str = "dynamic"
    partition_dimensions: list[str] = field(default_factory=list)
    await_ms: int = 0
    dimensions: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    max_saved_parse_exceptions: int = 0
    max_parse_exceptions: int | None = None

    @property
    def slots(self) -> int:
        # druid-contract §batch-rules: parallel = 1 supervisor + up to k subtasks = k+1 slots; sequential = 1 slot.
        return self.max_subtasks + 1 if self.parallel else 1

    def buckets(self) -> list[tuple[int, int]]:
        return buckets(self.intervals, self.segment_granularity)


def validate_id(field_name: str, value: Any) -> None:
    """IdUtils.validateId (druid-contract §submit Task ID rules) -> InvalidInputError with Druid's messages."""
    prefix = f"Invalid value for field [{field_name}]"
    if value is None or value == "":
        raise InvalidInputError(f"{prefix}: must not be null")
    if not isinstance(value, str):
        raise SpecError(f"Cannot deserialize value of type `java.lang.String` from {type(value).__name__}")
    if value.startswith("."):
        raise InvalidInputError(f"{prefix}: Value [{value}] cannot start with '.'.")
    if "/" in value:
        raise InvalidInputError(f"{prefix}: Value [{value}] cannot contain '/'.")
    if re.fullmatch(r"(?s).*[^\S ].*", value, re.ASCII):  # Java's \s is ASCII whitespace only
        raise InvalidInputError(
            f"{prefix}: Value [{value}] contains illegal whitespace characters.  Only space is allowed.")
    for pos, ch in enumerate(value):
        c = ord(ch)
        if 0 < c < 31 or 127 < c < 159 or 0xD800 < c < 0xF8FF or 0xFFF0 < c < 0xFFFF or c > 0xFFFF:
            raise InvalidInputError(f"{prefix}: Value [{value}] contains illegal UTF8 character [#{c}] "
                                    f"at position [{pos}]")


def jackson_syntax_error(text: str) -> str:
    """The Jackson ``JsonParseException`` message Druid returns for a body that is not JSON.

    Druid 33 (RECORDED.md §1): truncated body -> ``Unexpected end-of-input: expected close marker for Object
    (start marker at [Source: ...; line: 1, column: 35])``, the innermost unclosed container. Other syntax errors
    get Jackson's ``Unexpected character`` form (wording not recorded: approximate).
    """
    try:
        json.loads(text)
        return "Unexpected end-of-input"
    except json.JSONDecodeError as exc:
        error = exc
    if not text.strip():
        return "No content to map due to end-of-input"
    if error.pos < len(text.rstrip()):
        bad = text[error.pos]
        return (f"Unexpected character ('{bad}' (code {ord(bad)})): {error.msg.lower()} at "
                f"{_JETTY_SOURCE.format(error.lineno, error.colno)}")
    stack: list[tuple[str, int, int]] = []
    line, col, in_str, esc = 1, 0, False, False
    for ch in text:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif in_str:
            esc, in_str = (False, True) if esc else (ch == "\\", ch != '"')
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append(("Object" if ch == "{" else "Array", line, col))
        elif ch in "}]" and stack:
            stack.pop()
    if not stack:
        return "Unexpected end-of-input"
    kind, at_line, at_col = stack[-1]
    return (f"Unexpected end-of-input: expected close marker for {kind} "
            f"(start marker at {_JETTY_SOURCE.format(at_line, at_col)})")


def _problem(cls: str, message: str) -> SpecError:
    # Jackson ValueInstantiationException, first line (CustomExceptionMapper, druid-contract §submit Malformed spec).
    return SpecError(f"Cannot construct instance of `{cls}`, problem: {message}")


def _name_list(items: Any) -> list[str]:
    out = []
    for item in items or []:
        out.append(str(item.get("name")) if isinstance(item, dict) else str(item))
    return out


def parse_task(payload: Any) -> ParsedTask:
    """Deserialize a task payload the way the Overlord's Jackson mapper fails on it (druid-contract §submit,
    druid-contract §batch-rules)."""
    if not isinstance(payload, dict):
        raise SpecError("Cannot deserialize value of type `org.apache.druid.indexing.common.task.Task` from "
                        f"{'Array' if isinstance(payload, list) else 'scalar'} value")
    ttype = payload.get("type")
    if ttype is None:
        raise SpecError("Could not resolve subtype of [simple type, class org.apache.druid.indexing.common.task"
                        ".Task]: missing type id property 'type'")
    if ttype not in TASK_CLASSES:
        # Druid 33 (RECORDED.md §1): the extension hint, then Jackson's message, Java list formatting.
        raise SpecError(f"Please make sure to load all the necessary extensions and jars with type '{ttype}' on "
                        f"'druid/coordinator' service. Could not resolve type id '{ttype}' as a subtype of "
                        f"`org.apache.druid.indexing.common.task.Task` known type ids = "
                        f"[{', '.join(_KNOWN_TYPE_IDS)}]")
    cls = TASK_CLASSES[ttype]
    context = payload.get("context") or {}
    if not isinstance(context, dict):
        raise SpecError("Cannot deserialize value of type `java.util.LinkedHashMap` from non-object value")
    task_id, group_id = payload.get("id"), payload.get("groupId")
    if task_id is not None:
        # Druid 33 (RECORDED.md §1): an explicit id is validated in the task constructor, so a bad one is a
        # Jackson instantiation problem (400 {"error": ...}, field "task ID"), not an invalidInput druidException.
        try:
            validate_id("task ID", task_id)
        except InvalidInputError as exc:
            raise _problem(cls, str(exc)) from None
    if ttype == "noop":
        return ParsedTask(type=ttype, id=task_id, group_id=group_id,
                          datasource=payload.get("dataSource") or "none", context=context)
    if ttype == "compact":
        return _parse_compact(payload, task_id, group_id, context, cls)
    if ttype == "kill":
        return _parse_kill(payload, task_id, group_id, context, cls)
    spec = payload.get("spec")
    if not isinstance(spec, dict):
        raise _problem(cls, "ingestionSchema")
    data_schema, io_config = spec.get("dataSchema"), spec.get("ioConfig")
    tuning = spec.get("tuningConfig") or {}
    if not isinstance(data_schema, dict):
        raise _problem(cls, "dataSchema")
    datasource = data_schema.get("dataSource")
    try:
        validate_id("dataSource", datasource)
    except InvalidInputError as exc:
        raise _problem("org.apache.druid.segment.indexing.DataSchema", str(exc)) from None
    if not isinstance(io_config, dict):
        raise _problem(cls, "ioConfig")
    if io_config.get("inputSource") is None:
        raise _problem(cls, "inputSource")
    parsed = ParsedTask(type=ttype, id=task_id, group_id=group_id, datasource=datasource, context=context)
    _parse_granularity(parsed, data_schema.get("granularitySpec") or {})
    parsed.dimensions = _name_list((data_schema.get("dimensionsSpec") or {}).get("dimensions"))
    parsed.metrics = _name_list(data_schema.get("metricsSpec"))
    parsed.append = bool(io_config.get("appendToExisting", False))
    parsed.drop_existing = bool(io_config.get("dropExisting", False))
    perfect = _parse_tuning(parsed, cls, tuning)
    # druid-contract §batch-rules ingestion mode: both flags -> IAE -> 400. Checked in AbstractTask's constructor, so
    # before the
    # perfect-rollup/append check (Druid 33, RECORDED.md §1: the range spec with both flags gets this message).
    if parsed.append and parsed.drop_existing:
        raise _problem(cls, "Cannot simultaneously replace and append to existing segments. Either "
                       "dropExisting or appendToExisting should be set to false")
    # druid-contract §batch-rules: REPLACE with empty granularitySpec.intervals -> ISE at construction -> 400.
    if parsed.drop_existing and not parsed.intervals:
        raise _problem(cls, "GranularitySpec's intervals cannot be empty when using replace.")
    if perfect and parsed.append:
        raise _problem(cls, "Perfect rollup cannot be guaranteed when appending to existing dataSources")
    return parsed


def _parse_compact(payload: dict[str, Any], task_id: Any, group_id: Any, context: dict[str, Any],
                   cls: str) -> ParsedTask:
    """A compaction task (CompactionTask): ``ioConfig.inputSpec.interval`` rewritten at
    ``granularitySpec.segmentGranularity`` (default: keep the input's, modelled as DAY), a new version, one segment
    per new bucket that holds data (``ClusterState._publish``)."""
    datasource = payload.get("dataSource")
    try:
        validate_id("dataSource", datasource)
    except InvalidInputError as exc:
        raise _problem(cls, str(exc)) from None
    io_config = payload.get("ioConfig") or {}
    spec_in = io_config.get("inputSpec") if isinstance(io_config, dict) else None
    if not isinstance(spec_in, dict) or not spec_in.get("interval"):
        raise _problem(cls, "ioConfig")
    parsed = ParsedTask(type="compact", id=task_id, group_id=group_id, datasource=datasource, context=context)
    _parse_granularity(parsed, {**(payload.get("granularitySpec") or {}), "intervals": [spec_in["interval"]]})
    parsed.drop_existing = True
    return parsed


def _parse_kill(payload: dict[str, Any], task_id: Any, group_id: Any, context: dict[str, Any],
                cls: str) -> ParsedTask:
    """A kill task (KillUnusedSegmentsTask, Druid 33): ``dataSource``, ``interval``; ``batchSize`` and ``limit``
    must be positive (its constructor's InvalidInput). It deletes the interval's *unused* segments
    (``ClusterState._kill``) and publishes nothing."""
    datasource = payload.get("dataSource")
    try:
        validate_id("dataSource", datasource)
    except InvalidInputError as exc:
        raise _problem(cls, str(exc)) from None
    for name in ("batchSize", "limit"):
        value = payload.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise _problem(cls, f"{name}[{value}] must be a positive integer.")
    parsed = ParsedTask(type="kill", id=task_id, group_id=group_id, datasource=datasource, context=context)
    try:
        parsed.intervals = [parse_interval(str(payload.get("interval") or ""))]
    except ValueError as exc:
        raise _problem(cls, str(exc)) from None
    return parsed


def _parse_granularity(parsed: ParsedTask, gspec: dict[str, Any]) -> None:
    cls = "org.apache.druid.segment.indexing.granularity.UniformGranularitySpec"
    try:
        parsed.segment_granularity = normalize_granularity(gspec.get("segmentGranularity", "DAY"))
        parsed.intervals = [parse_interval(str(i)) for i in gspec.get("intervals") or []]
    except ValueError as exc:
        raise _problem(cls, str(exc)) from None
    if parsed.segment_granularity == "NONE":
        raise _problem(cls, "segmentGranularity NONE is not supported by FakeDruid")


def _parse_tuning(parsed: ParsedTask, cls: str, tuning: dict[str, Any]) -> bool:
    """Fill the tuning fields of ``parsed``; -> forceGuaranteedRollup."""
    k, legacy_k = tuning.get("maxNumConcurrentSubTasks"), tuning.get("maxNumSubTasks")
    if k is not None and legacy_k is not None:
        raise _problem(cls, "Can't use both maxNumSubTasks and maxNumConcurrentSubTasks. "
                       "Use maxNumConcurrentSubTasks instead")
    k = int(k if k is not None else legacy_k if legacy_k is not None else 1)
    if k < 1:
        raise _problem(cls, "maxNumConcurrentSubTasks must be positive")
    perfect = bool(tuning.get("forceGuaranteedRollup", False))
    # IndexTuningConfig: no partitionsSpec -> hashed under perfect rollup, dynamic otherwise.
    psec = tuning.get("partitionsSpec") or {"type": "hashed" if perfect else "dynamic"}
    ptype = str(psec.get("type", "dynamic"))
    if perfect and ptype == "dynamic":
        raise _problem(cls, "DynamicPartitionsSpec cannot be used for perfect rollup")
    if not perfect and ptype != "dynamic":
        raise _problem(cls, "DynamicPartitionsSpec must be used for best-effort rollup")
    dims = psec.get("partitionDimensions")
    if ptype == "single_dim":
        dims = [psec["partitionDimension"]] if psec.get("partitionDimension") else dims
    if ptype in ("range", "single_dim") and not dims:
        raise _problem(cls, "partitionDimensions must be specified")
    parsed.partitions_type = "range" if ptype in ("range", "single_dim") else ptype
    parsed.partition_dimensions = list(dims or [])
    # druid-contract §batch-rules: parallel mode needs maxNumConcurrentSubTasks >= 2 (>= 1 for range); `index` is
    # always sequential.
    parsed.max_subtasks = k
    parsed.parallel = parsed.type == "index_parallel" and (k >= 2 or parsed.partitions_type == "range")
    parsed.await_ms = int(tuning.get("awaitSegmentAvailabilityTimeoutMillis") or 0)
    parsed.max_saved_parse_exceptions = int(tuning.get("maxSavedParseExceptions") or 0)
    mpe = tuning.get("maxParseExceptions")
    parsed.max_parse_exceptions = None if mpe is None else int(mpe)
    return perfect


class FakeTask:
    """One task as the fake Overlord sees it. Public: id, state, runner_state, spec, created_time, version,
    segments (DataSegment JSON of what it published), error_msg."""

    def __init__(self, task_id: str, parsed: ParsedTask, spec: dict[str, Any], plan: TaskPlan,
                 created_at: float, created_time: str, seq: int, duration: float) -> None:
        self.id = task_id
        self.parsed = parsed
        self.type = parsed.type
        self.datasource = parsed.datasource
        self.group_id = parsed.group_id or task_id
        self.spec = spec
        self.plan = plan
        self.seq = seq
        self.created_at = created_at
        self.created_time = created_time
        self.duration = duration
        self.state = "RUNNING"  # TaskState: RUNNING | SUCCESS | FAILED (druid-contract §status)
        self.runner_state = "WAITING"  # RunnerTaskState: WAITING | PENDING | RUNNING | NONE (druid-contract §status)
        self.pending_at: float = created_at
        self.start_at: float | None = None
        self.end_at: float | None = None  # planned end of the RUNNING phase
        self.finished_at: float | None = None
        self.deadlocked = False
        self.version: str | None = None  # the time-chunk lock version, granted in isReady
        self.locks: list[tuple[int, int]] = []  # intervals locked while active
        self.queued_time: str | None = None  # queueInsertionTime of the runner work item
        self._segments: list[FakeSegment] = []
        self.error_msg: str | None = None
        self.ingestion_state = "NOT_STARTED"
        self.availability_deadline: float | None = None
        self.availability_confirmed = False
        self.availability_wait_ms = 0
        self.published_count: int | None = None
        self.location: dict[str, Any] = {"host": None, "port": -1, "tlsPort": -1}

    @property
    def segments(self) -> list[dict[str, Any]]:
        return [s.to_json() for s in self._segments]

    @property
    def is_active(self) -> bool:
        return self.state == "RUNNING"

    def __repr__(self) -> str:
        return f"FakeTask({self.id!r}, state={self.state}, runner_state={self.runner_state})"
