"""How long this datasource's ingestions take, from Druid's own task history, to plan when to look.

A wait that knows a datasource's daily ingestion runs 9-11 minutes does not need to ask every few seconds for
ten minutes: it can look first near the short end and densely around the expected end. The durations come from
``GET /druid/indexer/v1/tasks?state=complete&datasource=&type=&max=`` (SUCCESS ingestions only: supervisors,
never their ``partial_*``/``single_phase_sub_task`` subtasks), fetched once per process per datasource and type
and cached for a while (``HISTORY_TTL``), so a thousand waits on one datasource cost one request.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from druid_ingest.api import TaskStatus
from druid_ingest.api import endpoints as ep
from druid_ingest.wire import DruidError, Operation, call

__all__ = [
    "CACHE",
    "HANDOFF_LATENCIES",
    "HISTORY_TTL",
    "SUBTASK_TYPES",
    "DurationHistory",
    "HandoffLatencies",
    "HistoryCache",
    "WaitMemory",
    "ingestion_durations",
    "percentile",
    "task_history",
]

#: task types Druid runs *inside* an ingestion (druid-contract §workers): never an ingestion's own duration
SUBTASK_TYPES = frozenset({"single_phase_sub_task", "partial_dimension_cardinality", "partial_dimension_distribution",
                           "partial_index_generate", "partial_range_index_generate", "partial_index_generic_merge"})
HISTORY_TTL = 900.0
#: how long "no history yet" is remembered: a backfill's first days complete within minutes and make one
MISS_TTL = 120.0
HISTORY_SIZE = 50
MIN_SAMPLES = 3


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def ingestion_durations(tasks: Sequence[TaskStatus]) -> list[float]:
    """Seconds of the SUCCESS *ingestions* among ``tasks``: supervisors only, never their subtasks."""
    return [t.duration_ms / 1000 for t in tasks
            if t.state == "SUCCESS" and t.duration_ms and t.task_type not in SUBTASK_TYPES
            and (t.group_id is None or t.group_id == t.task_id)]


@dataclass(frozen=True)
class DurationHistory:
    """Run-time quantiles (seconds) of recent successful ingestions of one datasource and task type."""

    samples: int
    low: float  # 5th percentile
    median: float
    high: float  # 95th percentile
    longest: float

    @classmethod
    def of(cls, durations: Sequence[float]) -> DurationHistory | None:
        """None with fewer than ``MIN_SAMPLES`` durations: too little to predict from."""
        if len(durations) < MIN_SAMPLES:
            return None
        return cls(len(durations), percentile(durations, 5), percentile(durations, 50), percentile(durations, 95),
                   max(durations))


class HistoryCache:
    """Per-process cache of :class:`DurationHistory` by (cluster, datasource, task type), with a TTL.

    Thread-safe: triggers (one event loop) and worker threads may share it. A miss is cached too, for a shorter
    while (``miss_ttl``), so a datasource without history is not asked again on every wait.
    """

    def __init__(
        self, ttl: float = HISTORY_TTL, clock: Callable[[], float] = time.monotonic, miss_ttl: float = MISS_TTL
    ) -> None:
        self.ttl = ttl
        self.miss_ttl = miss_ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str, str], tuple[float, DurationHistory | None]] = {}

    def get(self, key: tuple[str, str, str]) -> tuple[bool, DurationHistory | None]:
        """(found and fresh, the history or None)."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or self.clock() - entry[0] > (self.ttl if entry[1] is not None else self.miss_ttl):
            return False, None
        return True, entry[1]

    def put(self, key: tuple[str, str, str], history: DurationHistory | None) -> None:
        with self._lock:
            self._entries[key] = (self.clock(), history)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


#: the process-wide cache every client shares (keyed by the cluster's URL)
CACHE = HistoryCache()


def task_history(
    cluster: str, datasource: str, task_type: str, cache: HistoryCache | None = None
) -> Operation[DurationHistory | None]:
    """The datasource's recent ingestion durations, from the cache or one task-list request. Never fails a wait:
    any error means "no history" (the fixed schedule is used)."""
    store = CACHE if cache is None else cache
    key = (cluster, datasource, task_type)
    found, history = store.get(key)
    if found:
        return history
    try:
        tasks = yield from call(ep.tasks("complete", datasource, HISTORY_SIZE, task_type), ep.parse_tasks)
    except DruidError:
        tasks = []
    history = DurationHistory.of(ingestion_durations(tasks))
    store.put(key, history)
    return history


class HandoffLatencies:
    """Seconds from a task's SUCCESS to its data being queryable, per (cluster, datasource), as this process saw
    them: the next handoff wait of that datasource takes its first look near the usual delay instead of at once
    (a look right after SUCCESS always finds the segments not loaded yet)."""

    def __init__(self, keep: int = 10) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], list[float]] = {}

    def expected(self, key: tuple[str, str]) -> float | None:
        """The 75th percentile of the recent delays (a first look then mostly finds the data served), or None
        before two were seen."""
        with self._lock:
            seen = list(self._seen.get(key, ()))
        return percentile(seen, 75) if len(seen) >= 2 else None

    def record(self, key: tuple[str, str], seconds: float) -> None:
        with self._lock:
            seen = self._seen.setdefault(key, [])
            seen.append(max(0.0, seconds))
            del seen[: -self.keep]

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()


#: the process-wide handoff delays every client shares
HANDOFF_LATENCIES = HandoffLatencies()


@dataclass(frozen=True)
class WaitMemory:
    """What the waits learn about one cluster and reuse, owned by a client and passed into each wait (the waits
    write to no module state). ``shared`` gives the process-wide caches, so short-lived clients (one per Airflow
    task) still learn from each other; a fresh ``WaitMemory(cluster)`` learns alone (tests, simulations)."""

    cluster: str
    durations: HistoryCache = field(default_factory=HistoryCache)
    handoffs: HandoffLatencies = field(default_factory=HandoffLatencies)

    @classmethod
    def shared(cls, cluster: str) -> WaitMemory:
        return cls(cluster, CACHE, HANDOFF_LATENCIES)
