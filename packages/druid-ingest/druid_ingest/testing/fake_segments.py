"""Segments and retention rules of the fake Druid (pure data, no I/O, no clock of its own)."""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from typing import Any

from druid_ingest.testing.fake_time import (
    add_period,
    contains,
    covered,
    format_instant,
    format_interval,
    overlaps,
    parse_interval,
)

__all__ = [
    "DEFAULT_RULES",
    "DEFAULT_TIER",
    "HISTORICAL",
    "FakeSegment",
    "complete_groups",
    "is_replicated_load_rule",
    "matching_rule",
    "overshadowed_ids",
    "rule_replicas",
    "visible_pieces",
]

# One "historical" serves everything; its name is what `servers` lists show (druid-contract §handoff listings).
HISTORICAL = "127.0.0.1:8083"
DEFAULT_TIER = "_default_tier"
# Druid's cluster default: loadForever with 2 replicas in _default_tier (Druid 33, RECORDED.md §9). The fake,
# like dev/druid, has a single historical, so one copy loads and loadstatus `full` reports under-replication.
DEFAULT_RULES: list[dict[str, Any]] = [{"type": "loadForever", "tieredReplicants": {DEFAULT_TIER: 2}}]


@dataclass
class FakeSegment:
    datasource: str
    interval: tuple[int, int]
    version: str
    partition_num: int = 0
    core_partitions: int = 1
    shard_type: str = "numbered"  # numbered | range (JSON "single" for one dimension) | hashed | tombstone
    num_rows: int = 0
    size: int = 0
    dimensions: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    partition_dimensions: list[str] = field(default_factory=list)
    # Lifecycle (wall-clock seconds): published_at -> ready_at (earliest load) -> served_at; unused_at.
    published_at: float = 0.0
    ready_at: float = 0.0
    served_at: float | None = None
    used: bool = True
    unused_at: float | None = None
    task_id: str | None = None
    #: a compaction task's segment: its JSON carries ``lastCompactionState`` (CompactionTask stores it)
    compacted: bool = False

    @property
    def is_tombstone(self) -> bool:
        return self.shard_type == "tombstone"

    @property
    def identifier(self) -> str:
        # SegmentId.toString(): <ds>_<start>_<end>_<version>[_<partitionNum> if > 0]
        base = (
            f"{self.datasource}_{format_instant(self.interval[0])}_{format_instant(self.interval[1])}"
            f"_{self.version}"
        )
        return f"{base}_{self.partition_num}" if self.partition_num else base

    def shard_spec(self) -> dict[str, Any]:
        if self.shard_type == "tombstone":
            # Druid 33 (RECORDED.md §6): TombstoneShardSpec serializes partitions 0.
            return {"type": "tombstone", "partitionNum": self.partition_num, "partitions": 0}
        if self.shard_type == "range" and len(self.partition_dimensions) == 1:
            # Druid 33 (RECORDED.md §6): a range spec on ONE dimension publishes SingleDimensionShardSpec
            # ("single"); one partition holds the whole range (start/end null).
            return {"type": "single", "start": None, "end": None, "dimension": self.partition_dimensions[0],
                    "partitionNum": self.partition_num, "numCorePartitions": self.core_partitions}
        if self.shard_type == "range":
            # DimensionRangeShardSpec (several dimensions): one partition holds the whole range.
            return {"type": "range", "dimensions": self.partition_dimensions, "start": None, "end": None,
                    "partitionNum": self.partition_num, "numCorePartitions": self.core_partitions}
        if self.shard_type == "hashed":
            return {"type": "hashed", "partitionNum": self.partition_num, "partitions": self.core_partitions,
                    "bucketId": self.partition_num, "numBuckets": self.core_partitions,
                    "partitionDimensions": self.partition_dimensions, "partitionFunction": "murmur3_32_abs"}
        return {"type": "numbered", "partitionNum": self.partition_num, "partitions": self.core_partitions}

    def to_json(self) -> dict[str, Any]:
        """DataSegment JSON; dimensions/metrics are comma-joined strings (CommaListJoinSerializer)."""
        if self.is_tombstone:
            # Druid 33 (RECORDED.md §6): {"path": null, "type": "tombstone"}, binaryVersion null, size 1.
            load_spec: dict[str, Any] = {"path": None, "type": "tombstone"}
        else:
            load_spec = {
                "type": "local",
                "path": f"/var/druid/segments/{self.datasource}/{format_instant(self.interval[0])}_"
                f"{format_instant(self.interval[1])}/{self.version}/{self.partition_num}/index.zip",
            }
        data: dict[str, Any] = {
            "dataSource": self.datasource,
            "interval": format_interval(self.interval),
            "version": self.version,
            "loadSpec": load_spec,
            "dimensions": ",".join(self.dimensions),
            "metrics": ",".join(self.metrics),
            "shardSpec": self.shard_spec(),
            "binaryVersion": None if self.is_tombstone else 9,
            "size": self.size,
            "identifier": self.identifier,
        }
        if self.compacted:  # DataSegment writes the key only when set (JsonInclude NON_NULL)
            data["lastCompactionState"] = {"partitionsSpec": {"type": "dynamic"}, "granularitySpec": {}}
        return data


def complete_groups(segments: list[FakeSegment]) -> dict[tuple[tuple[int, int], str], list[FakeSegment]]:
    """(interval, version) -> its segments, only for complete partition sets.

    Druid's PartitionHolder: a set counts once its core partitions 0..n-1 are all there (NumberedPartitionChunk:
    with n = 0 every chunk is both start and end, so any set is complete); a tombstone is a set of its own.
    """
    groups: dict[tuple[tuple[int, int], str], list[FakeSegment]] = {}
    for seg in segments:
        groups.setdefault((seg.interval, seg.version), []).append(seg)
    out = {}
    for key, segs in groups.items():
        core = max(s.core_partitions for s in segs)
        have = {s.partition_num for s in segs}
        if any(s.is_tombstone for s in segs) or core <= 0 or all(p in have for p in range(core)):
            out[key] = segs
    return out


def overshadowed_ids(segments: list[FakeSegment], by: list[FakeSegment] | None = None) -> set[str]:
    """Identifiers of ``segments`` (one datasource) overshadowed by ``by`` (default: by ``segments``).

    VersionedIntervalTimeline: a segment is overshadowed when complete partition sets of higher versions
    together cover its whole interval (a finer newer set clips it only in part: still visible elsewhere; a
    coarser newer set covers it entirely).
    """
    by = segments if by is None else by
    if not by or not segments:
        return set()
    top: dict[tuple[int, int], str] = {}
    for interval, version in complete_groups(by):
        if version > top.get(interval, ""):
            top[interval] = version
    if not top:
        return set()
    ivs = sorted(top)
    starts = [iv[0] for iv in ivs]
    max_len = max(end - start for start, end in ivs)
    out: set[str] = set()
    for seg in segments:
        lo = bisect.bisect_right(starts, seg.interval[0] - max_len)
        hi = bisect.bisect_left(starts, seg.interval[1])
        pieces = [iv for iv in ivs[lo:hi] if top[iv] > seg.version and overlaps(iv, seg.interval)]
        if pieces and covered(seg.interval, pieces):
            out.add(seg.identifier)
    return out


def visible_pieces(segments: list[FakeSegment], within: tuple[int, int]) -> list[tuple[tuple[int, int],
                                                                                   list[FakeSegment]]]:
    """What a query over ``within`` reads: (clipped interval, the complete set holding it), in time order.

    At every instant the highest version among the complete sets covering it wins (on a tie the longer
    interval: Druid's answer there depends on the order segments were added). Adjacent instants won by one
    set merge into one piece; tombstone sets are included (callers drop them as query targets).
    """
    groups = complete_groups([s for s in segments if overlaps(s.interval, within)])
    cuts = sorted({within[0], within[1]} | {t for iv, _ in groups for t in iv if within[0] < t < within[1]})
    out: list[tuple[tuple[int, int], list[FakeSegment]]] = []
    last_key: tuple[tuple[int, int], str] | None = None
    for a, b in itertools.pairwise(cuts):
        over = [key for key in groups if key[0][0] <= a and b <= key[0][1]]
        if not over:
            last_key = None
            continue
        key = max(over, key=lambda k: (k[1], k[0][1] - k[0][0]))
        if key == last_key:
            out[-1] = ((out[-1][0][0], b), out[-1][1])
        else:
            out.append(((a, b), groups[key]))
        last_key = key
    return out


def _rule_applies(rule: dict[str, Any], interval: tuple[int, int], now_ms: int) -> bool:
    rtype = str(rule.get("type", ""))
    if rtype.endswith("Forever"):
        return True
    if rtype.endswith("ByInterval"):
        rule_interval = parse_interval(str(rule["interval"]))
        # IntervalLoadRule: overlaps; IntervalDropRule: contains (Rules.eligibleForLoad / IntervalDropRule).
        return overlaps(rule_interval, interval) if rtype.startswith(("load", "broadcast")) else contains(
            rule_interval, interval)
    if rtype == "dropBeforeByPeriod":
        return interval[1] <= add_period(now_ms, str(rule["period"]), -1)
    if rtype.endswith("ByPeriod"):
        start = add_period(now_ms, str(rule["period"]), -1)
        include_future = bool(rule.get("includeFuture", True))
        if rtype.startswith(("load", "broadcast")):
            # PeriodLoadRule: with includeFuture, anything ending after (now - period).
            return start < interval[1] if include_future else overlaps((start, now_ms), interval)
        return start <= interval[0] if include_future else contains((start, now_ms), interval)
    raise ValueError(f"Unknown rule type [{rtype}]")


def matching_rule(rules: list[dict[str, Any]], interval: tuple[int, int], now_ms: int) -> dict[str, Any] | None:
    """First applicable rule of the datasource rules followed by the cluster defaults (getRulesWithDefault)."""
    for rule in [*rules, *DEFAULT_RULES]:
        if _rule_applies(rule, interval, now_ms):
            return rule
    return None


def rule_replicas(rule: dict[str, Any] | None) -> int:
    """Replicas a rule asks for: load rules sum tieredReplicants; broadcast = 1 (loaded); drop/none = 0."""
    if rule is None:
        return 0
    rtype = str(rule.get("type", ""))
    if rtype.startswith("load"):
        tiers = rule.get("tieredReplicants")
        if tiers is None:
            return 2  # LoadRule default: {_default_tier: 2}
        return sum(int(v) for v in tiers.values())
    if rtype.startswith("broadcast"):
        return 1
    return 0


def is_replicated_load_rule(rule: dict[str, Any] | None) -> bool:
    """druid-contract §handoff handoffComplete: 'the matching rule is a load rule with replicas' (broadcast is not a
    LoadRule)."""
    return rule is not None and str(rule.get("type", "")).startswith("load") and rule_replicas(rule) > 0
