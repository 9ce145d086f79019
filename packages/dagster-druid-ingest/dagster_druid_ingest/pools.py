"""Sizing the Dagster concurrency pool of the ingesting steps from Druid's task slots (the k+1 rule).

A Dagster pool counts steps, one slot each, whatever the step asks of Druid. So the pool's limit is the number
of *ingestions* that fit at once: ``N x (k+1) <= total slots - headroom`` for the widest spec sharing the pool
(``Plan.peak_slots``: ``k+1`` for ``index_parallel`` with ``maxNumConcurrentSubTasks=k``, else 1).
Then set it on the instance: ``dagster instance concurrency set druid_ingest N`` (or in the UI). The
``druid-ingest pool --for dagster`` command does the arithmetic against a live cluster and prints that command.
"""

from collections.abc import Iterable

from druid_ingest.ops import pool_size
from druid_ingest.planning import Plan

from dagster_druid_ingest.resource import DruidResource

__all__ = ["cluster_pool_limit", "concurrency_set_command", "pool_limit"]


def pool_limit(total_slots: int, peak_slots: Iterable[int], headroom: int = 0) -> int:
    """Concurrent ingestions the pool may allow; 0 when not even one of the widest spec fits."""
    widest = max(peak_slots, default=1)
    return pool_size(total_slots, widest, headroom)


def cluster_pool_limit(druid: DruidResource, plans: Iterable[Plan], headroom: int = 0) -> int:
    """:func:`pool_limit` with the cluster's slots read from ``/workers`` (needs STATE READ)."""
    with druid.get_client() as client:
        total = client.capacity().total_slots
    return pool_limit(total, [plan.peak_slots for plan in plans], headroom)


def concurrency_set_command(pool: str, limit: int) -> list[str]:
    """The Dagster CLI call that sets the limit on the instance in ``$DAGSTER_HOME``."""
    return ["dagster", "instance", "concurrency", "set", pool, str(limit)]
