"""Plain value objects the core returns. Primitives only inside, so every face can serialize them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from druid_ingest.api._jsonvalues import as_dict, as_int
from druid_ingest.errors import DruidProtocolError
from druid_ingest.planning import parse_instant

if TYPE_CHECKING:
    pass

__all__ = [
    "FAILED",
    "HANDOFF_STATES",
    "RUNNING",
    "SUCCESS",
    "TERMINAL_STATES",
    "ClusterCapacity",
    "DataServer",
    "HandoffResult",
    "HandoffState",
    "HandoffTarget",
    "InputSample",
    "Segment",
    "TaskLock",
    "TaskStatus",
    "WorkerInfo",
    "segment_interval",
    "segment_version",
]

# Druid's TaskState (statusCode): only these three. Waiting for a lock or slot is RUNNING (druid-contract §status).
RUNNING = "RUNNING"
SUCCESS = "SUCCESS"
FAILED = "FAILED"
TERMINAL_STATES = frozenset({SUCCESS, FAILED})


@dataclass(frozen=True)
class TaskStatus:
    """One task's state. ``state`` comes from ``statusCode`` (or ``status`` in bulk answers).

    ``runner_state`` is informational only: Druid reports ``WAITING`` for finished tasks (druid-contract §status quirk).
    ``queued_time`` is Druid's ``queueInsertionTime`` when it is real (task lists, for tasks the runner has).
    ``version_ceiling`` is filled in by waits (:func:`~.operations.observe_task`), never by Druid: an instant on
    the Overlord's clock at which this task held its time-chunk lock, so its segment versions are <= it and a
    later replace's are > it. None when the lock was never seen (the task finished between two looks).
    """

    task_id: str
    state: str
    runner_state: str | None = None
    created_time: str | None = None
    duration_ms: int | None = None
    error_msg: str | None = None
    datasource: str | None = None
    task_type: str | None = None
    location: str | None = None
    queued_time: str | None = None
    group_id: str | None = None
    version_ceiling: str | None = None

    @property
    def is_terminal(self) -> bool:
        return self.state in TERMINAL_STATES

    @property
    def phase(self) -> str:
        """A human phase: WAITING/PENDING/RUNNING while active, else the terminal state."""
        if self.state == RUNNING and self.runner_state in ("WAITING", "PENDING", "RUNNING"):
            return self.runner_state
        return self.state

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class InputSample:
    """What the Overlord's sampler read from the first rows of an input (druid-contract §sampler).

    ``rows_read`` counts every row read, parseable or not, up to the requested ``numRows``; ``rows_indexed`` the
    ones that parsed (the sampler does not filter by the spec's intervals); ``first_error`` is the parse error of
    the first unparseable row, if any.
    """

    rows_read: int
    rows_indexed: int
    unparseable: int = 0
    first_error: str | None = None
    #: how long the call took: the sampler stops at its ``timeoutMs`` and answers what it read by then
    seconds: float = 0.0
    #: the parsed ``__time`` (epoch ms) of each indexed row, in the order read: the sampler does not filter by the
    #: spec's intervals, so these tell whether the input holds the interval's rows at all
    times: tuple[int, ...] = ()


@dataclass(frozen=True)
class WorkerInfo:
    host: str
    capacity: int
    used: int
    category: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class ClusterCapacity:
    """Task slots across workers, from ``/workers`` (and ``/totalWorkerCapacity`` when permitted)."""

    workers: tuple[WorkerInfo, ...]
    total_slots: int
    used_slots: int

    @property
    def free_slots(self) -> int:
        return max(0, self.total_slots - self.used_slots)


def segment_interval(value: Any, what: str) -> str:
    """A segment's interval as Druid writes it (``<start>/<end>``, two instants, end after start), or
    DruidProtocolError: the gate compares and sorts these, so a malformed one must not get further."""
    try:
        start, end = value.split("/") if isinstance(value, str) else ("", "")
        if parse_instant(start) < parse_instant(end):
            return str(value)
    except ValueError:
        pass
    raise DruidProtocolError(
        f"{what} interval {str(value)[:100]!r} is not <start>/<end> with two ISO-8601 instants, end after start"
    )


def segment_version(value: Any, what: str) -> str:
    """A segment's version: a non-empty string (the lock's instant, as Druid writes it), or DruidProtocolError."""
    if isinstance(value, str) and value:
        return value
    raise DruidProtocolError(f"{what} version {str(value)[:100]!r} is not a non-empty string")


@dataclass(frozen=True)
class DataServer:
    """One server the Coordinator lists as holding segments (``/servers?simple``): a Historical, or an Indexer or
    Peon serving realtime segments (``indexer-executor``). Sizes are bytes of segment cache."""

    host: str
    type: str
    tier: str
    curr_size: int
    max_size: int


@dataclass(frozen=True)
class Segment:
    """The parts of a DataSegment the handoff gate needs."""

    segment_id: str
    interval: str
    version: str
    partition_num: int
    is_tombstone: bool = False
    size: int = 0
    #: the shard spec's core partition count (``partitions`` / ``numCorePartitions``): the partitions 0..n-1 that
    #: must all be present before Druid's timeline shows this version (0: any set is
    #: complete; see ``ops/gate/timeline.py``)
    core_partitions: int = 0
    #: the DataSegment carries ``lastCompactionState``: a compaction task wrote it (Druid stores that state for
    #: compaction's segments only, unless a task's context sets ``storeCompactionState``)
    compacted: bool = False

    @classmethod
    def from_druid(cls, data: dict[str, Any]) -> Segment:
        """A DataSegment's JSON. The interval and version decide what the gate requires, so they must be a
        start/end interval and a string (DruidProtocolError otherwise); the rest reads leniently."""
        shard, load = as_dict(data.get("shardSpec")), as_dict(data.get("loadSpec"))
        tomb = shard.get("type") == "tombstone" or load.get("type") == "tombstone"
        ident = data.get("identifier") or data.get("id")
        return cls(
            segment_id=ident if isinstance(ident, str) else "",
            interval=segment_interval(data.get("interval"), "segment"),
            version=segment_version(data.get("version"), "segment"),
            partition_num=as_int(shard.get("partitionNum")) or 0,
            is_tombstone=tomb,
            size=as_int(data.get("size")) or 0,
            core_partitions=0 if tomb else max(0, as_int(shard.get("partitions"))
                                               or as_int(shard.get("numCorePartitions")) or 0),
            compacted=bool(data.get("lastCompactionState")),
        )


@dataclass(frozen=True)
class TaskLock:
    """One active lock from ``POST /druid/indexer/v1/activeLocks``. ``group_id`` is the holder's groupId."""

    group_id: str
    datasource: str
    interval: str
    version: str
    lock_type: str | None = None
    revoked: bool = False
    #: the holder's lock priority (a higher one may revoke a lower one's lock: druid-contract §locks)
    priority: int | None = None


@dataclass(frozen=True)
class HandoffTarget:
    """What "this task's data is queryable" means, fixed once after the task succeeded.

    ``min_version`` is the task's ``createdTime``: a replace task's lock version is the Overlord's clock when
    it acquires its time-chunk lock, so its segments have a version >= it. ``version_ceiling`` (when a wait
    saw the task holding its lock) separates this task's version from later ones; see ``ops/gate/verdict.py``.
    """

    task_id: str
    datasource: str
    intervals: tuple[str, ...]
    min_version: str
    append: bool = False
    segments_published: int | None = None
    version_ceiling: str | None = None
    #: the ``errorMsg`` Druid put on the SUCCESS status (e.g. "No valid rows for range partitioning..."), if any
    task_message: str | None = None
    #: rows the report says went into segments (processed + processedWithError); None without a report's row stats
    rows_processed: int | None = None
    #: when the task ended (epoch seconds: Druid's createdTime + duration, early by its time in the queue), None
    #: unknown: the handoff wait places its looks from it (``ops/handoff_wait.py``), wherever it starts
    ended_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["intervals"] = list(self.intervals)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandoffTarget:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**{**known, "intervals": tuple(data["intervals"])})


#: the gate's verdicts, typed once: comparing a state with any other string is a type error (mypy strict equality)
HandoffState = Literal["pending", "loaded", "superseded", "nothing", "never"]
HANDOFF_STATES: tuple[HandoffState, ...] = ("pending", "loaded", "superseded", "nothing", "never")


@dataclass(frozen=True)
class HandoffResult:
    """One evaluation of the gate.

    ``state``: ``loaded`` (all of this task's segments are served), ``pending``, ``never`` (load rules give
    some of them zero replicas), ``nothing`` (the task published no segments), ``superseded`` (a later
    ingestion replaced them, and *its* segments are served: that is what queries read). ``superseded_by``
    names that later version, ``superseded_by_task`` the task that wrote it. ``nothing`` also covers a publish
    of tombstones only (an empty replace: the interval's data is gone), once the Broker reads nothing there.
    """

    state: HandoffState
    expected: int = 0
    served: int = 0
    missing: tuple[str, ...] = field(default_factory=tuple)
    never: tuple[str, ...] = field(default_factory=tuple)
    version: str | None = None
    detail: str = ""
    superseded_by: str | None = None
    #: the task that wrote ``superseded_by`` (a later replace, or a ``compact`` task), when the task list tells
    superseded_by_task: str | None = None

    @property
    def done(self) -> bool:
        return self.state in ("loaded", "nothing", "superseded")

    def to_dict(self) -> dict[str, Any]:
        """Primitives; ``missing``/``never`` keep their first 20 ids (an event stays small)."""
        data = asdict(self)
        data["missing"] = list(self.missing)[:20]
        data["never"] = list(self.never)[:20]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandoffResult:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["missing"] = tuple(known.get("missing") or ())
        known["never"] = tuple(known.get("never") or ())
        if known.get("state") not in HANDOFF_STATES:
            raise ValueError(f"not a handoff result: state {known.get('state')!r}; expected one of {HANDOFF_STATES}")
        return cls(**known)
