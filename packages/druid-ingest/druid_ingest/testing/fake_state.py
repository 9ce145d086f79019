"""Pure cluster state of the fake Druid: tasks, slots, segments, rules, handoff.

Nothing ticks in the background: every entry point calls :meth:`ClusterState.advance` with the current
time, which replays all events (task start/end, segment loads, coordinator cycles) up to that instant in
order. Behaviour therefore depends only on the clock readings, not on thread scheduling.
"""

from __future__ import annotations

import copy
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from druid_ingest.testing.fake_index import TaskIndex
from druid_ingest.testing.fake_locks import can_lock, lock_intervals
from druid_ingest.testing.fake_publish import new_segment, published_segments
from druid_ingest.testing.fake_segment_view import SegmentView
from druid_ingest.testing.fake_segments import FakeSegment, overshadowed_ids
from druid_ingest.testing.fake_tasks import DISAPPEARED, FakeTask, ParsedTask, TaskPlan
from druid_ingest.testing.fake_time import format_instant, now_iso, overlaps

__all__ = ["ClusterState"]


class ClusterState(SegmentView):
    """The Overlord's tasks and the Coordinator's segments, advanced together by one clock."""

    def __init__(self, *, task_duration: float, worker_capacity: int, handoff_delay: float,
                 pending_delay: float, coordinator_period: float, overshadowed_grace: float = 900.0,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(coordinator_period, clock())
        self.lock = threading.RLock()
        self.clock = clock
        self.task_duration = task_duration
        self.capacity = worker_capacity
        self.handoff_delay = handoff_delay
        self.pending_delay = pending_delay
        # Druid 33 (RECORDED.md §6): MarkOvershadowedSegmentsAsUnused first acts millisToWaitBeforeDeleting
        # (15 min) after the Coordinator became leader; until then overshadowed segments stay used and served.
        self.overshadowed_grace = overshadowed_grace
        self.started_at = clock()
        self.tasks: dict[str, FakeTask] = {}
        self.plans: deque[TaskPlan] = deque()
        self.default_plan = TaskPlan()
        self.last_completed_time: str | None = None
        self._last_version_ms = 0
        self._seq = 0
        self.index = TaskIndex()  # active tasks by phase: what advance() looks at
        self._next: tuple[int, float | None] | None = None  # (generation, next event time) while nothing changes

    # ------------------------------------------------------------------ clock
    def now(self) -> float:
        """Advance to the current clock reading and return it."""
        now = self.clock()
        self.advance(now)
        return max(now, self._t)

    def advance(self, now: float) -> None:
        with self.lock:
            while True:
                t = self._next_event_time()
                if t is None or t > now:
                    break
                self._t = max(t, self._t)
                self._process(self._t)
            self._t = max(self._t, now)

    def touch(self) -> None:
        """Something changed: the cached overshadowed sets and next event time are stale."""
        self._gen += 1

    # ------------------------------------------------------------- submission
    def new_task_id(self, parsed: ParsedTask, now: float) -> str:
        # druid-contract §submit IdUtils.newTaskId: <type>_<dataSource>_<8 random chars a-p>_<ISO now>
        rand = "".join(random.choice("abcdefghijklmnop") for _ in range(8))
        return f"{parsed.type}_{parsed.datasource}_{rand}_{now_iso(now)}"

    def insert_task(self, task_id: str, parsed: ParsedTask, payload: dict[str, Any], now: float) -> FakeTask:
        with self.lock:
            self.advance(now)
            return self.add_task(task_id, parsed, payload, now)

    def add_task(self, task_id: str, parsed: ParsedTask, payload: dict[str, Any], now: float) -> FakeTask:
        """Store a submitted task as WAITING, the clock not advanced (``insert_task`` and ``fake_seed`` do that)."""
        with self.lock:
            plan = self.plans.popleft() if self.plans else self.default_plan
            stored = copy.deepcopy(payload)
            stored["id"] = task_id
            stored.setdefault("groupId", parsed.group_id or task_id)
            stored.setdefault("dataSource", parsed.datasource)
            context = stored.setdefault("context", {})
            # druid-contract §submit: TaskQueue.add fills these context keys unless the spec sets them.
            context.setdefault("forceTimeChunkLock", True)
            context.setdefault("useLineageBasedSegmentAllocation", True)
            self._seq += 1
            duration = plan.duration if plan.duration is not None else self.task_duration
            task = FakeTask(task_id, parsed, stored, plan, now, now_iso(now), self._seq, duration)
            task.pending_at = now + self.pending_delay
            self.tasks[task_id] = task
            self.index.add(task)
            self.touch()
            return task

    # -------------------------------------------------------------- queries
    def used_slots(self) -> int:
        return self.index.used

    def _need(self, task: FakeTask) -> int:
        return min(task.parsed.slots, self.capacity)

    # --------------------------------------------------------------- events
    def _availability_done(self, task: FakeTask) -> bool:
        return all(self.handoff_complete(s.datasource, s.interval, s.partition_num, s.version)
                   for s in task._segments)

    def _next_event_time(self) -> float | None:
        """The earliest instant something happens; remembered until the state changes or the clock passes it
        (not with retention rules set: a period rule's match moves with the clock alone)."""
        cached = self._next
        if cached is not None and cached[0] == self._gen and not any(self.rules.values()) \
                and (cached[1] is None or cached[1] > self._t):
            return cached[1]
        now, times = self._t, []
        idx = self.index
        due_now = False  # once something is due now, no further lock check can lower the minimum
        for task in idx.waiting.values():
            # Waiting for its time to come, then for its time-chunk locks (a release is another event).
            if task.pending_at > now:
                times.append(task.pending_at)
            elif not due_now and can_lock(self.index, task):
                times.append(now)
                due_now = True
        free = self.capacity - idx.used
        if any(self._need(task) <= free for task in idx.pending.values()):
            times.append(now)
        for task in idx.availability.values():
            times.append(now if self._availability_done(task) else task.availability_deadline)
        end = idx.next_end()
        if end is not None:
            times.append(end)
        for seg in self.segments:
            if seg.used and seg.unused_at is not None:
                times.append(seg.unused_at)
            if self._wants_load(seg):
                times.append(max(seg.ready_at, now))
            if self._should_unload(seg):
                times.append(now)
            if self._needs_unused_mark(seg):
                times.append(max(now, self.started_at + self.overshadowed_grace))
        out = min(times, default=None)
        self._next = (self._gen, out)
        return out

    def _process(self, t: float) -> None:
        idx = self.index
        due = {task.id: task for task in idx.pop_due(t)}  # RUNNING phases ending by t
        due.update((task.id, task) for task in idx.waiting.values() if task.pending_at <= t)
        for task in sorted(due.values(), key=lambda x: x.seq):  # in submission order, as the Overlord's queue
            if task.is_active and task.runner_state == "RUNNING" and not task.deadlocked \
                    and task.ingestion_state != "SEGMENT_AVAILABILITY_WAIT" and task.end_at <= t:
                self._complete_run(task, t)
            elif task.is_active and task.runner_state == "WAITING" and task.pending_at <= t \
                    and task.parsed.type == "compact" and not self._compactable(task):
                # Druid 33 (observed; CompactionTask.isReady finds no segment to lock): FAILED, never run
                self._finish(task, t, "FAILED", "Encountered error[No segments found for compaction. Please check "
                             "that datasource name and interval are correct.] while waiting for task to be ready. "
                             "See Overlord logs for more details.")
            elif task.is_active and task.runner_state == "WAITING" and task.pending_at <= t \
                    and can_lock(self.index, task):
                self._lock(task, t)  # isReady got its locks: handed to the runner, waiting for a slot
        for seg in self.segments:
            if seg.used and seg.unused_at is not None and seg.unused_at <= t:
                seg.used = False
                self.touch()
        for seg in self.segments:
            if self._wants_load(seg) and seg.ready_at <= t:
                seg.served_at = t
                self.touch()
        for seg in self.segments:
            if self._should_unload(seg):
                seg.served_at = None
                self.touch()
        marking = t >= self.started_at + self.overshadowed_grace
        for seg in self.segments:
            if marking and self._needs_unused_mark(seg):
                seg.unused_at = t + self.coordinator_period
        for task in list(idx.availability.values()):
            if task.is_active and task.ingestion_state == "SEGMENT_AVAILABILITY_WAIT":
                done = self._availability_done(task)
                if done or task.availability_deadline <= t:
                    task.availability_confirmed = done
                    task.availability_wait_ms = int((t - task.end_at) * 1000)
                    self._finish(task, t, "SUCCESS", None)
        self._schedule(t)

    def _schedule(self, t: float) -> None:
        """Start PENDING tasks that fit, in submission order, without head-of-line blocking (druid-contract
        §batch-rules)."""
        free = self.capacity - self.used_slots()
        for task in sorted(self.index.pending.values(), key=lambda x: x.seq):
            if not (task.is_active and task.runner_state == "PENDING") or self._need(task) > free:
                continue
            free -= self._need(task)
            task.runner_state = "RUNNING"
            task.start_at = t
            task.end_at = t + task.duration
            task.ingestion_state = "BUILD_SEGMENTS"
            task.location = {"host": "127.0.0.1", "port": 8100 + task.seq % 900, "tlsPort": -1}
            # druid-contract §batch-rules deadlock: parallel supervisor holding the only slot; its subtasks never get
            # one.
            task.deadlocked = task.parsed.parallel and self.capacity == 1
            self.index.started(task, self._need(task))
            self.touch()

    # ----------------------------------------------------------------- locks
    def _lock(self, task: FakeTask, t: float) -> None:
        """Grant the locks: version = the Overlord's clock now (kept strictly increasing); TaskQueue then hands
        the task to the runner (PENDING) and the work item stamps queueInsertionTime a few ms later."""
        ms = max(int(t * 1000), self._last_version_ms + 1)
        self._last_version_ms = ms
        task.version = format_instant(ms)
        task.locks = lock_intervals(task)  # none for a spec without intervals (it locks while running)
        task.queued_time = format_instant(ms + 4)
        task.runner_state = "PENDING"  # druid-contract §status: handed to the runner, waiting for a slot
        self.index.locked(task)
        self.touch()

    def _complete_run(self, task: FakeTask, t: float) -> None:
        plan, parsed = task.plan, task.parsed
        if plan.outcome == "FAILED":
            self._finish(task, t, "FAILED", plan.error_msg or "Task failed (planned by FakeDruid TaskPlan).")
            return
        if parsed.max_parse_exceptions is not None and plan.unparseable > parsed.max_parse_exceptions:
            self._finish(task, t, "FAILED", f"Max parse exceptions[{parsed.max_parse_exceptions}] exceeded")
            return
        if parsed.partitions_type == "range" and parsed.parallel and plan.rows_per_bucket <= 0:
            # Druid 33 (RECORDED.md §2, manual_test_3): empty input with range partitioning is SUCCESS with an
            # errorMsg; nothing is published (no tombstones, old data stays) and there is no report.
            self._finish(task, t, "SUCCESS", "No valid rows for range partitioning. All rows may have invalid "
                         "timestamps or multiple dimension values.")
            return
        task._segments = self._publish(task, t)
        task.published_count = len(task._segments)
        if plan.failed_after_publish:  # the publish committed, then the worker vanished (druid-contract §attempts)
            task.ingestion_state = "COMPLETED"
            self._finish(task, t, "FAILED", DISAPPEARED)
            return
        if parsed.await_ms > 0:
            # druid-contract §handoff "How Druid itself waits": the task keeps its slot until handoff or timeout;
            # SUCCESS either way.
            task.ingestion_state = "SEGMENT_AVAILABILITY_WAIT"
            self.index.awaiting_availability(task)
            task.availability_deadline = t + parsed.await_ms / 1000.0
            if not task._segments:  # waitForSegmentAvailability: nothing to wait for -> confirmed
                task.availability_confirmed = True
                self._finish(task, t, "SUCCESS", None)
            return
        self._finish(task, t, "SUCCESS", None)

    def _compactable(self, task: FakeTask) -> bool:
        """A used segment of the task's datasource overlaps its interval (what a compaction locks and reads)."""
        return any(s.used and s.datasource == task.datasource and overlaps(s.interval, i)
                   for s in self.segments for i in task.parsed.intervals)

    def _finish(self, task: FakeTask, t: float, state: str, error: str | None) -> None:
        self.index.finished(task, self._need(task))
        task.state = state
        task.runner_state = "NONE"
        task.error_msg = error
        task.finished_at = t
        task.locks = []  # TaskQueue.notifyStatus -> TaskLockbox.remove
        if task.start_at is not None and state == "SUCCESS":
            task.ingestion_state = "COMPLETED"
        self.last_completed_time = now_iso(t)
        self.touch()

    def shutdown(self, task: FakeTask, now: float) -> None:
        """druid-contract §shutdown: active task -> FAILED 'Shutdown request from user'; no-op when already complete."""
        with self.lock:
            self.advance(now)
            if task.is_active:
                self._finish(task, self._t, "FAILED", "Shutdown request from user")
                self._schedule(self._t)

    # ----------------------------------------------------------- publishing
    def _publish(self, task: FakeTask, t: float) -> list[FakeSegment]:
        if task.parsed.type == "kill":
            self._kill(task)
        out = published_segments(task, t, self.used(task.datasource), self.handoff_delay)
        self.segments.extend(out)
        self.touch()
        return out

    def _kill(self, task: FakeTask) -> None:
        """KillUnusedSegmentsTask: the unused segments inside its interval leave the metadata store and deep
        storage (RetrieveUnusedSegmentsAction); used ones are never touched."""
        (start, end), ds = task.parsed.intervals[0], task.datasource
        self.segments = [s for s in self.segments if s.used or s.datasource != ds
                         or not (start <= s.interval[0] and s.interval[1] <= end)]

    def mark_unused(self, ds: str, interval: tuple[int, int]) -> int:
        """``markUnused`` of an interval: its used segments become unused now (the Coordinator unloads them)."""
        with self.lock:
            t = self.now()
            hit = [s for s in self.segments if s.used and s.datasource == ds
                   and interval[0] <= s.interval[0] and s.interval[1] <= interval[1]]
            for seg in hit:
                seg.used, seg.unused_at = False, t
            self.touch()
            return len(hit)

    def mark_used(self, ds: str, interval: tuple[int, int]) -> int:
        """``markUsed`` of an interval (``SqlSegmentsMetadataQuery.markNonOvershadowedSegmentsAsUsedInternal``):
        the unused segments *inside* it that neither the used segments overlapping it nor the other unused ones
        overshadow become used now; the Coordinator loads them again after ``handoff_delay``."""
        with self.lock:
            t = self.now()
            mine = [s for s in self.segments if s.datasource == ds]
            used = [s for s in mine if s.used and overlaps(s.interval, interval)]
            unused = [s for s in mine if not s.used and interval[0] <= s.interval[0] and s.interval[1] <= interval[1]]
            shadowed = overshadowed_ids(unused, by=used + unused)
            hit = [s for s in unused if s.identifier not in shadowed]
            for seg in hit:
                seg.used, seg.unused_at, seg.ready_at = True, None, t + self.handoff_delay
            self.touch()
            return len(hit)

    def preload(self, ds: str, interval: tuple[int, int], version: str, partitions: int) -> list[FakeSegment]:
        with self.lock:
            t = self.now()
            segs = [new_segment(None, interval, version, p, partitions, "numbered", 1, t, self.handoff_delay, ds=ds)
                    for p in range(partitions)]
            for seg in segs:
                seg.published_at = seg.ready_at = t - self.coordinator_period  # already in every snapshot
                seg.served_at = t if self.replicas(seg) > 0 else None
            self.segments.extend(segs)
            self.touch()
            return segs

    # --------------------------------------------------------------- control
    def set_rules(self, ds: str, rules: list[dict[str, Any]]) -> None:
        with self.lock:
            self.now()
            self.rules[ds] = copy.deepcopy(rules)
            self.touch()

    def set_historicals(self, count: int) -> None:
        with self.lock:
            self.now()
            self.historicals = count
            self.touch()

    def set_paused(self, paused: bool) -> None:
        with self.lock:
            self.now()
            self.loading_paused = paused
            self.touch()

    def load_all_now(self) -> None:
        with self.lock:
            t = self.now()
            for seg in self.segments:
                if seg.used and seg.served_at is None and seg.identifier not in self.overshadowed(
                        seg.datasource) and self.replicas(seg) > 0:
                    seg.served_at = t
                    self.touch()
            self.advance(t)
