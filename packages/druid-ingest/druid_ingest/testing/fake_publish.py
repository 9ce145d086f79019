"""What a finished task publishes in the fake Druid: its segments per bucket, as pure functions of the task, the
clock and the datasource's used segments (``ClusterState`` adds them to its timeline).

REPLACE writes tombstones over older data, APPEND joins the existing chunk, compaction rewrites what queries read.
"""

from __future__ import annotations

from druid_ingest.testing.fake_segments import FakeSegment, visible_pieces
from druid_ingest.testing.fake_tasks import FakeTask
from druid_ingest.testing.fake_time import bucket_of, overlaps

__all__ = ["new_segment", "published_segments"]


def published_segments(task: FakeTask, t: float, used: list[FakeSegment], handoff_delay: float) -> list[FakeSegment]:
    """The segments ``task`` publishes at ``t`` over the datasource's ``used`` segments (not yet added)."""
    parsed, plan = task.parsed, task.plan
    if parsed.type in ("noop", "kill"):  # a kill deletes (ClusterState._kill); neither publishes
        return []
    bucket_list = parsed.buckets()
    if not bucket_list:
        # No intervals: Druid derives them from the data; the fake pretends all rows fell on the
        # segment-granularity bucket containing the task's creation time.
        bucket_list = [bucket_of(int(task.created_at * 1000), parsed.segment_granularity)]
    if parsed.type == "compact":
        return _compaction(task, bucket_list, used, t, handoff_delay)
    out: list[FakeSegment] = []
    shard = parsed.partitions_type if parsed.partitions_type in ("range", "hashed") else "numbered"
    for bucket in bucket_list:
        rows = 0 if plan.rows_outside else plan.rows_per_bucket  # Druid drops rows outside the intervals
        if rows <= 0:
            # druid-contract §batch-rules REPLACE: tombstones for empty parts of the input intervals that hold
            # older data. Druid 33
            # (RECORDED.md §6, dynamic/hashed): 24 tombstones for a day of HOUR buckets over older data;
            # test_fidelity: none for a day without older data.
            if parsed.drop_existing and any(overlaps(s.interval, bucket) for s in used):
                out.append(new_segment(task, bucket, task.version, 0, 1, "tombstone", 0, t, handoff_delay))
            continue
        version, partition, core = task.version, 0, 1
        if parsed.append:
            chunk = [s for s in used if s.interval == bucket]
            if chunk:
                # APPEND: join the existing chunk's version with the next partitionNum.
                version = max(s.version for s in chunk)
                same = [s for s in chunk if s.version == version]
                partition = max(s.partition_num for s in same) + 1
                core = max(s.core_partitions for s in same)
        out.append(new_segment(task, bucket, version, partition, core, shard, rows, t, handoff_delay))
    return out


def _compaction(task: FakeTask, bucket_list: list[tuple[int, int]], used: list[FakeSegment], t: float,
                handoff_delay: float) -> list[FakeSegment]:
    """CompactionTask: what queries read in each new bucket, rewritten as one segment of a new version
    (which overshadows the finer input entirely); a bucket holding no data gets nothing."""
    out: list[FakeSegment] = []
    for bucket in bucket_list:
        rows = sum(s.num_rows for _, group in visible_pieces(used, bucket) for s in group if not s.is_tombstone)
        if rows > 0:
            seg = new_segment(task, bucket, task.version, 0, 1, "numbered", rows, t, handoff_delay)
            seg.compacted = True
            out.append(seg)
    return out


def new_segment(task: FakeTask | None, bucket: tuple[int, int], version: str | None, partition: int,
                core: int, shard: str, rows: int, t: float, handoff_delay: float, ds: str | None = None) -> FakeSegment:
    """One published segment; it becomes loadable ``handoff_delay`` after ``t``."""
    parsed = task.parsed if task else None
    return FakeSegment(
        datasource=ds or task.datasource, interval=bucket, version=str(version), partition_num=partition,
        core_partitions=core, shard_type=shard, num_rows=rows,
        size=1 if shard == "tombstone" else 1000 + 100 * rows,  # tombstone size 1 (RECORDED.md §6)
        dimensions=[] if shard == "tombstone" or not parsed else parsed.dimensions,
        metrics=[] if shard == "tombstone" or not parsed else parsed.metrics,
        partition_dimensions=parsed.partition_dimensions if parsed else [],
        published_at=t, ready_at=t + handoff_delay, task_id=task.id if task else None)
