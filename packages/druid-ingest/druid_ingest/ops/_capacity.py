"""Task-slot arithmetic (druid-contract §batch-rules, §workers): how many ingestions fit, and when a spec does not.

One home for the k+1 rule's consequences, used by the operators at submit time, the CLI's ``pool`` and
``check-dags``, and any face that sizes a concurrency pool.
"""

from __future__ import annotations

from typing import Literal

from druid_ingest.api import ClusterCapacity
from druid_ingest.api import endpoints as ep
from druid_ingest.ops._history import WaitMemory
from druid_ingest.wire import Operation, call

__all__ = ["SlotFinding", "cluster_capacity", "pool_size", "slots_finding"]

SlotFinding = tuple[Literal["error", "warning"], str]


def pool_size(total_slots: int, slots_per_task: int, headroom: int = 0) -> int:
    """Concurrent ingestions that fit: N x (k+1) <= total - headroom; 0 when not even one does."""
    return max(0, total_slots - headroom) // max(1, slots_per_task)


def slots_finding(peak_slots: int, capacity: ClusterCapacity) -> SlotFinding | None:
    """What a spec needing ``peak_slots`` at once meets on this cluster, or None when it fits.

    More than the cluster has is not fatal: the supervisor takes one slot and its extra subtasks wait (PENDING),
    so the ingestion runs with less parallelism than asked. A parallel task on a cluster with fewer than two slots
    deadlocks: the supervisor holds the only slot its subtasks need.
    """
    total = capacity.total_slots
    if peak_slots <= total:
        return None
    if peak_slots > 1 and total < 2:
        return ("error", f"the spec runs in parallel ({peak_slots} task slots at peak) but the cluster has {total} "
                         "slot(s): the supervisor would hold the only slot and its subtasks never start (set "
                         "tuningConfig.maxNumConcurrentSubTasks to 1, or add Druid workers)")
    return ("warning", f"the spec needs {peak_slots} Druid task slots at peak but the cluster has {total}: its "
                       f"subtasks will queue (PENDING) and it runs with at most {total - 1} subtask(s) at once "
                       f"(lower tuningConfig.maxNumConcurrentSubTasks to {total - 1}, or add workers)")


def cluster_capacity(memory: WaitMemory | None = None) -> Operation[ClusterCapacity]:
    """``GET /workers``, or ``memory``'s copy of it younger than its ``CAPACITY_TTL``: the verdicts depend only on
    the total slots, which change when workers come or go, not between two ingestions a few minutes apart.
    Errors propagate (and are not kept)."""
    if memory is not None:
        found, capacity = memory.capacity.get(memory.cluster)
        if found and capacity is not None:
            return capacity
    capacity = yield from call(ep.workers(), ep.parse_workers)
    if memory is not None:
        memory.capacity.put(memory.cluster, capacity)
    return capacity
