"""How long this datasource's ingestions take, from Druid's own task history, to plan when to look.

A wait that knows a datasource's daily ingestion runs 9-11 minutes does not need to ask every few seconds for
ten minutes: it can look first near the short end and densely around the expected end. The durations come from
``GET /druid/indexer/v1/tasks?state=complete&datasource=&max=`` over every task Druid keeps, not only the last
day's (``endpoints.completed_tasks``; SUCCESS ingestions only: supervisors, never
their ``partial_*``/``single_phase_sub_task`` subtasks; over more tasks when subtasks crowd the newest ones:
:func:`recent_ingestions`), fetched once per process per datasource and type and kept while it
cannot have changed much: a tenth of its samples' worth of runs at the datasource's own cadence
(:func:`history_ttl`), so a thousand waits on one datasource cost one request, and a daily one in a long-lived
triggerer reads it every few days, not every run.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from druid_ingest.api import ClusterCapacity, TaskStatus
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidError
from druid_ingest.ops._handoff_latencies import HANDOFF_LATENCIES, HandoffLatencies
from druid_ingest.planning import parse_instant
from druid_ingest.wire import Operation, call

__all__ = [
    "CACHE",
    "CAPACITY",
    "CAPACITY_TTL",
    "HISTORY_MAX_TTL",
    "HISTORY_SCAN_MAX",
    "HISTORY_TTL",
    "MIN_SAMPLES",
    "SUBTASK_TYPES",
    "CapacityCache",
    "DurationHistory",
    "HistoryCache",
    "TtlCache",
    "WaitMemory",
    "history_ttl",
    "ingestion_durations",
    "many_histories",
    "newest_of_type",
    "percentile",
    "recent_ingestions",
    "task_history",
]

#: task types Druid runs *inside* an ingestion (druid-contract §workers): never an ingestion's own duration
SUBTASK_TYPES = frozenset({"single_phase_sub_task", "partial_dimension_cardinality", "partial_dimension_distribution",
                           "partial_index_generate", "partial_range_index_generate", "partial_index_generic_merge"})
#: the most completed tasks a history read asks Druid to scan for a datasource whose subtasks crowd its newest
#: ``HISTORY_SIZE`` (a parallel ingestion with range partitioning lists a dozen subtasks per run)
HISTORY_SCAN_MAX = 1000
#: the shortest a history is kept (a datasource with too few runs to know its cadence)
HISTORY_TTL = 900.0
#: the longest: a week, whatever the cadence (durations drift as the data grows)
HISTORY_MAX_TTL = 7 * 86400.0
#: how long the cluster's task slots (``GET /workers``) are kept: the capacity check compares them with a plan's
#: peak, which only adding or removing workers changes (an autoscaler's cycle is minutes)
CAPACITY_TTL = 600.0
#: how long "no history yet" (a miss) is remembered: as long as the shortest history. A history changes only when
#: an ingestion completes, and a SUCCESS this process's waits see drops the miss (:meth:`HistoryCache.ran`), so a
#: backfill's first days, seen completing by its own waits, make the next wait read Druid again at once; only
#: runs completed unseen (another process's) wait out the TTL, and a miss costs polls, never a wrong answer
MISS_TTL = HISTORY_TTL
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
    #: the median seconds between two of these runs' starts (how often the datasource runs), None when unknown
    every: float | None = None
    #: the durations themselves, ascending: where the runs cluster (a weekday and a weekend size), so the looks
    #: near one cluster are as dense as its own spread asks (``PredictedSchedule.next_delay``)
    runs: tuple[float, ...] = ()

    @classmethod
    def of(cls, durations: Sequence[float], starts: Sequence[float] = ()) -> DurationHistory | None:
        """None with fewer than ``MIN_SAMPLES`` durations: too little to predict from. ``starts``: the runs'
        start instants (epoch seconds), for the cadence."""
        if len(durations) < MIN_SAMPLES:
            return None
        ordered = sorted(starts)
        gaps = [b - a for a, b in itertools.pairwise(ordered) if b > a]
        return cls(len(durations), percentile(durations, 5), percentile(durations, 50), percentile(durations, 95),
                   max(durations), percentile(gaps, 50) if gaps else None, tuple(sorted(durations)))


def history_ttl(history: DurationHistory | None) -> float:
    """How long a history may be reused: while at most a tenth of its samples can have been replaced by newer runs
    (``samples // 10`` runs at its cadence), between ``HISTORY_TTL`` and ``HISTORY_MAX_TTL``. The window a wait
    plans from (5th percentile to longest, widened by two sample gaps) barely moves when a tenth of it changes;
    a miss is the caller's ``MISS_TTL``."""
    if history is None or history.every is None:
        return HISTORY_TTL
    return min(HISTORY_MAX_TTL, max(HISTORY_TTL, history.samples // 10 * history.every))


K = TypeVar("K")
V = TypeVar("V")


class TtlCache(Generic[K, V]):
    """Per-process values with a time to live, on an injectable clock (a simulation's, or ``time.monotonic``).

    Thread-safe: triggers (one event loop) and worker threads may share it. Each entry may carry its own TTL; a
    miss (None) is kept for ``miss_ttl``, so a question without an answer is not asked again on every wait.
    """

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic, miss_ttl: float | None = None) -> None:
        self.ttl = ttl
        self.miss_ttl = ttl if miss_ttl is None else miss_ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[K, tuple[float, V | None, float]] = {}

    def get(self, key: K) -> tuple[bool, V | None]:
        """(found and fresh, the value or None)."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or self.clock() - entry[0] > entry[2]:
            return False, None
        return True, entry[1]

    def put(self, key: K, value: V | None, ttl: float | None = None) -> None:
        """Keep ``value`` for ``ttl`` seconds (default: the cache's ``ttl``, or ``miss_ttl`` for None)."""
        keep = ttl if ttl is not None else self.ttl if value is not None else self.miss_ttl
        with self._lock:
            self._entries[key] = (self.clock(), value, keep)

    def drop(self, key: K) -> None:
        """Forget ``key``'s value (kept or not): the next ``get`` misses."""
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


class HistoryCache(TtlCache[tuple[str, str, str], DurationHistory]):
    """:class:`DurationHistory` by (cluster, datasource, task type); :func:`task_history` keeps each for its
    :func:`history_ttl`."""

    def __init__(
        self, ttl: float = HISTORY_TTL, clock: Callable[[], float] = time.monotonic, miss_ttl: float = MISS_TTL
    ) -> None:
        super().__init__(ttl, clock, miss_ttl)
        #: per key, how many completed tasks the last read scanned to find the runs (``recent_ingestions``): kept
        #: past the history's TTL, so a parallel datasource's next read is one request, not two
        self.scans: dict[tuple[str, str, str], int] = {}
        #: per key, the SUCCESSes this process saw (:meth:`ran`): a read under way across one keeps no miss
        self.successes: dict[tuple[str, str, str], int] = {}
        #: per cluster, when a read of every datasource's completed tasks came back full (:func:`many_histories`):
        #: the cluster has more than one page shows, so for ``HISTORY_TTL`` each datasource reads its own
        self.crowded: dict[str, float] = {}

    def ran(self, key: tuple[str, str, str]) -> None:
        """A run of ``key`` succeeded, seen by this process: a kept miss may be out of date (the run may complete a
        history), so it is dropped and the next wait reads Druid again; a kept history stays (one more run
        barely moves it: :func:`history_ttl`)."""
        with self._lock:
            self.successes[key] = self.successes.get(key, 0) + 1
            entry = self._entries.get(key)
            if entry is not None and entry[1] is None:
                del self._entries[key]

    def clear(self) -> None:
        super().clear()
        self.scans.clear()
        self.successes.clear()
        self.crowded.clear()


class CapacityCache(TtlCache[str, ClusterCapacity]):
    """The cluster's :class:`ClusterCapacity` by its URL, for ``CAPACITY_TTL`` (``ops._capacity``)."""

    def __init__(self, ttl: float = CAPACITY_TTL, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(ttl, clock, miss_ttl=0.0)


#: the process-wide caches every client shares (keyed by the cluster's URL)
CACHE = HistoryCache()
CAPACITY = CapacityCache()


def task_history(
    cluster: str, datasource: str, task_type: str, cache: HistoryCache | None = None
) -> Operation[DurationHistory | None]:
    """The datasource's recent ingestion durations, from the cache or a task-list read (:func:`recent_ingestions`,
    scanning as many tasks as the last read of this key found the runs among). Never fails a wait: any error
    means "no history" (the fixed schedule is used). A miss read while a run of the key was seen succeeding
    (:meth:`HistoryCache.ran`) is not kept: the listing may predate that run."""
    store = CACHE if cache is None else cache
    key = (cluster, datasource, task_type)
    found, history = store.get(key)
    if found:
        return history
    seen = store.successes.get(key, 0)
    try:
        tasks, store.scans[key] = yield from recent_ingestions(datasource, task_type, scan=store.scans.get(key))
    except DruidError:
        tasks = []
    return _keep(store, key, tasks, seen)[1]


def many_histories(cluster: str, keys: Collection[tuple[str, str]], cache: HistoryCache,
                   ) -> Operation[tuple[list[tuple[str, str]], bool]]:
    """The histories of many (datasource, task type) keys the cache lacks, from one read of the cluster's newest
    completed tasks (a start-up herd's waits on a hundred datasources: one request, not a hundred); returns the
    keys it could not settle, each then read alone (:func:`task_history`), and whether it sent the read.

    The read lists ``HISTORY_SIZE`` completed tasks per datasource (at most ``HISTORY_SCAN_MAX``) of every
    datasource and type, newest first, as one datasource's read does. A page Druid did not fill is all it has,
    so every key is settled, with or without runs; from a full one, only the keys it holds ``HISTORY_SIZE`` runs
    of (the same newest runs their own read would list): the others' older runs may lie past its end, and for
    ``HISTORY_TTL`` after a full page no such read is sent (``HistoryCache.crowded``: a cluster with that many
    completed tasks would fill the next page too). One datasource alone reads its own, filtered page; an error
    settles nothing."""
    wanted = [key for key in dict.fromkeys(keys) if not cache.get((cluster, *key))[0]]
    datasources = {ds for ds, _ in wanted}
    if len(datasources) < 2 or cache.clock() - cache.crowded.get(cluster, -math.inf) < HISTORY_TTL:
        return wanted, False
    scan = min(HISTORY_SIZE * len(datasources), HISTORY_SCAN_MAX)
    seen = {key: cache.successes.get((cluster, *key), 0) for key in wanted}
    try:
        page = yield from call(ep.completed_tasks(None, scan), ep.parse_tasks)
    except DruidError:
        return wanted, True
    runs: dict[tuple[str, str], list[TaskStatus]] = {key: [] for key in wanted}
    for task in page:
        mine = runs.get((task.datasource or "", task.task_type or ""))
        if mine is not None:
            mine.append(task)
    whole = len(page) < scan
    if not whole:
        cache.crowded[cluster] = cache.clock()
    return [key for key, mine in runs.items()
            if not (whole or len(mine) >= HISTORY_SIZE) or not _keep(cache, (cluster, *key), mine[:HISTORY_SIZE],
                                                                     seen[key])[0]], True


def _keep(store: HistoryCache, key: tuple[str, str, str], tasks: Sequence[TaskStatus], seen: int,
          ) -> tuple[bool, DurationHistory | None]:
    """The history of ``tasks`` (a key's newest runs), and whether it was kept: a miss read while a run of the key
    was seen succeeding (``seen`` SUCCESSes before the read) is not (the listing may predate that run)."""
    history = DurationHistory.of(ingestion_durations(tasks), _starts(tasks))
    if history is None and store.successes.get(key, 0) != seen:
        return False, None
    store.put(key, history, history_ttl(history) if history is not None else None)
    return True, history


def newest_of_type(datasource: str | None, task_type: str, size: int) -> Operation[list[TaskStatus]]:
    """The newest ``size`` completed tasks of ``task_type`` (of ``datasource``, or of every datasource), read past
    the subtasks that crowd Druid's own ``type=`` and ``max=`` (:func:`recent_ingestions`)."""
    tasks, _ = yield from recent_ingestions(datasource, task_type, size)
    return tasks


def recent_ingestions(
    datasource: str | None, task_type: str, size: int = HISTORY_SIZE, scan: int | None = None
) -> Operation[tuple[list[TaskStatus], int]]:
    """The datasource's newest ``size`` completed tasks of ``task_type``, and how many tasks to scan next time.

    Druid bounds the completed tasks by ``max`` before it filters them by ``type``
    (``TaskQueryTool.getTaskStatusPlusStream``), and a parallel ingestion's subtasks are completed tasks of its
    datasource: on Druid 33, ``type=index_parallel&max=50`` for the example DAG's datasource (a dozen subtasks
    per run) returned 3 runs, not 50. So the read lists the newest ``scan`` tasks (default ``size``) of every type
    and keeps the type's: a page Druid did not fill is all it has; a full one with fewer than ``size`` of them is
    read once more over as many tasks as should hold ``size`` at the rate seen, 1.5 times over (at most
    ``HISTORY_SCAN_MAX``), and the caller passes that ``scan`` next time: one read per history from then on."""
    scan = size if scan is None else scan
    page = yield from call(ep.completed_tasks(datasource, scan), ep.parse_tasks)
    mine = [task for task in page if task.task_type == task_type]
    if len(page) < scan or len(mine) >= size or scan >= HISTORY_SCAN_MAX:
        return mine[:size], scan
    scan = HISTORY_SCAN_MAX if not mine else min(HISTORY_SCAN_MAX, math.ceil(1.5 * size * len(page) / len(mine)))
    page = yield from call(ep.completed_tasks(datasource, scan), ep.parse_tasks)
    return [task for task in page if task.task_type == task_type][:size], scan


def _starts(tasks: Sequence[TaskStatus]) -> list[float]:
    """The SUCCESS ingestions' ``createdTime`` instants (epoch seconds), those that parse."""
    found = []
    for task in tasks:
        if task.state == "SUCCESS" and task.created_time and task.task_type not in SUBTASK_TYPES:
            try:
                found.append(parse_instant(task.created_time).timestamp())
            except ValueError:
                continue
    return found


@dataclass(frozen=True)
class WaitMemory:
    """What the waits learn about one cluster and reuse, owned by a client and passed into each wait (the waits
    write to no module state). ``shared`` gives the process-wide caches, so short-lived clients (one per Airflow
    task) still learn from each other; a fresh ``WaitMemory(cluster)`` learns alone (tests, simulations)."""

    cluster: str
    durations: HistoryCache = field(default_factory=HistoryCache)
    handoffs: HandoffLatencies = field(default_factory=HandoffLatencies)
    capacity: CapacityCache = field(default_factory=CapacityCache)

    @classmethod
    def shared(cls, cluster: str) -> WaitMemory:
        return cls(cluster, CACHE, HANDOFF_LATENCIES, CAPACITY)

    @classmethod
    def on_clock(cls, cluster: str, clock: Callable[[], float]) -> WaitMemory:
        """A fresh memory whose caches age on ``clock`` (a simulated one: a daily run then pays its reads)."""
        return cls(cluster, HistoryCache(clock=clock), HandoffLatencies(), CapacityCache(clock=clock))
