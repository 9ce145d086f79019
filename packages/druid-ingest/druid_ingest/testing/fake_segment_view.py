"""The fake Coordinator's view of the segments: what is used, served, overshadowed, what the load rules ask for,
and when a segment is handed off. Read by :class:`~druid_ingest.testing.fake_state.ClusterState`'s event loop
(which owns the clock and the lock) and by the Coordinator and Broker endpoints."""

from __future__ import annotations

from typing import Any

from druid_ingest.testing.fake_segments import (
    FakeSegment,
    is_replicated_load_rule,
    matching_rule,
    overshadowed_ids,
    rule_replicas,
)
from druid_ingest.testing.fake_time import overlaps

__all__ = ["SegmentView"]


class SegmentView:
    """Segments and load rules, and the Coordinator's answers about them at the state's time ``_t``."""

    def __init__(self, coordinator_period: float, now: float) -> None:
        self.coordinator_period = coordinator_period
        self.segments: list[FakeSegment] = []
        self.rules: dict[str, list[dict[str, Any]]] = {}
        self.loading_paused = False
        self.historicals = 1  # 0: a cluster whose Historical is down (nothing loads; /servers lists none)
        self._t = now
        self._gen = 0  # bumped on every change (``ClusterState.touch``): the cache below is then stale
        self._cache: dict[tuple[str, str], tuple[int, set[str]]] = {}

    def used(self, ds: str) -> list[FakeSegment]:
        return [s for s in self.segments if s.used and s.datasource == ds]

    def served(self, ds: str) -> list[FakeSegment]:
        return [s for s in self.segments if s.served_at is not None and s.datasource == ds]

    def snapshot_used(self, ds: str | None = None) -> list[FakeSegment]:
        """The coordinator's cached metadata snapshot: lags publishes by one poll (druid-contract §handoff
        pollDuration)."""
        now = self._t
        return [s for s in self.segments if s.used and (ds is None or s.datasource == ds)
                and s.published_at + self.coordinator_period <= now]

    def overshadowed(self, ds: str, kind: str = "used") -> set[str]:
        key = (ds, kind)
        hit = self._cache.get(key)
        if hit and hit[0] == self._gen:
            return hit[1]
        # used: timeline of used segments; served: served by served; mark: used by served (coordinator duty).
        if kind == "used":
            ids = overshadowed_ids(self.used(ds))
        elif kind == "served":
            ids = overshadowed_ids(self.served(ds))
        else:
            ids = overshadowed_ids(self.used(ds), by=self.served(ds))
        self._cache[key] = (self._gen, ids)
        return ids

    def used_visible(self, ds: str) -> list[FakeSegment]:
        shadowed = self.overshadowed(ds)
        return [s for s in self.used(ds) if s.identifier not in shadowed]

    def rule_for(self, ds: str, interval: tuple[int, int]) -> dict[str, Any] | None:
        return matching_rule(self.rules.get(ds, []), interval, int(self._t * 1000))

    def replicas(self, seg: FakeSegment) -> int:
        return rule_replicas(self.rule_for(seg.datasource, seg.interval))

    def handoff_complete(self, ds: str, interval: tuple[int, int], partition: int, version: str) -> bool:
        """druid-contract §handoff DataSourcesResource.isHandOffComplete."""
        # A segment that is not eligible for load (no load rule with replicas) will never be handed off.
        if not is_replicated_load_rule(self.rule_for(ds, interval)):
            return True
        served = self.served(ds)
        if not served:
            return False  # no timeline yet
        shadowed = self.overshadowed(ds, "served")
        visible = [s for s in served if s.identifier not in shadowed and overlaps(s.interval, interval)]
        # The served timeline already holds a newer version for the interval.
        if any(s.version > version for s in visible):
            return True
        return any(s.interval[0] <= interval[0] and interval[1] <= s.interval[1]
                   and s.partition_num == partition and s.version >= version for s in served)

    def _wants_load(self, seg: FakeSegment) -> bool:
        # Tombstones load too (druid-contract §handoff: loaded via TombstoneLoadSpec); a check against real Druid may
        # revise this.
        return (seg.used and seg.served_at is None and not self.loading_paused and self.historicals > 0
                and seg.identifier not in self.overshadowed(seg.datasource)
                and self.replicas(seg) > 0)

    def _should_unload(self, seg: FakeSegment) -> bool:
        # Coordinator drops: unused, or a rule with no replicas. RunRules skips overshadowed segments, so they
        # stay served until marked unused (Druid 33, RECORDED.md §7: served listings include them).
        return seg.served_at is not None and (not seg.used or self.replicas(seg) == 0)

    def _needs_unused_mark(self, seg: FakeSegment) -> bool:
        # MarkOvershadowedSegmentsAsUnused: overshadowed by *served* segments -> unused next coordinator run.
        if not seg.used or seg.unused_at is not None:
            return False
        return seg.identifier in self.overshadowed(seg.datasource, "mark")
