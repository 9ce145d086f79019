"""A compaction of one datasource interval (Druid's ``compact`` task) as a :class:`~druid_ingest.planning.Plan`.

The third kind of work on the seam: the same deterministic id (a retry adopts the running compaction, never starts
a second), the same waits and the same handoff gate (green once the compacted version is what the Broker serves,
``superseded`` when a later task replaced it). Pre-flight here is Druid's own run-time rule, checked before any
HTTP: with ``ioConfig.allowNonAlignedInterval`` false (its default) the interval must start and end on the target
``segmentGranularity``'s buckets, or the task FAILS ("Interval[...] to compact is not aligned with
segmentGranularity[...]", ``NativeCompactionRunner.createIoConfig`` in Druid 33's indexing-service).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning._ids import base_task_id, canonical_interval, canonical_json
from druid_ingest.planning._one_interval import one_interval_problems
from druid_ingest.planning._work import NATIVE_TASK_PATH, WorkKind
from druid_ingest.planning.spec.buckets import Buckets, buckets_of
from druid_ingest.wire import Request

__all__ = ["CompactionPlan", "build_compaction_plan"]


@dataclass(frozen=True)
class CompactionPlan:
    """A valid ``compact`` task for one interval and what it implies. Build it with :func:`build_compaction_plan`."""

    spec_json: str
    datasource: str
    intervals: tuple[str, ...]
    base_task_id: str
    peak_slots: int = 1
    warnings: tuple[str, ...] = ()

    @property
    def kind(self) -> WorkKind:
        return "compaction"

    @property
    def mode(self) -> str:
        return "COMPACT"

    @property
    def append(self) -> bool:
        return False  # it rewrites the interval under a new version: the gate waits for that version

    @property
    def probes_input(self) -> bool:
        return False  # its input is the datasource itself: an empty interval publishes nothing, erases nothing

    @property
    def publishes(self) -> bool:
        return True

    @property
    def runs_task(self) -> bool:
        return True

    @property
    def task_spec(self) -> None:
        return None  # no input source to probe, never an append: the probe and the evidence have nothing to read

    @property
    def spec(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.spec_json)
        return value

    def describe(self) -> str:
        granularity = self.spec.get("granularitySpec", {}).get("segmentGranularity")
        into = f" into {granularity} segments" if granularity else ""
        return (f"COMPACT {self.datasource!r} for {', '.join(self.intervals)}{into}; {self.peak_slots} Druid task "
                f"slot(s) at peak; base task id {self.base_task_id}")

    def submit_request(self, task_id: str) -> Request:
        """druid-contract §submit: the ``compact`` task with its pinned ``id``, POSTed to the Overlord."""
        return Request("POST", "overlord", NATIVE_TASK_PATH, json_body={**self.spec, "id": task_id})


def build_compaction_plan(
    datasource: str,
    interval: str,
    *,
    segment_granularity: str | None = None,
    tuning_config: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> CompactionPlan:
    """Check a compaction of ``interval`` of ``datasource`` (no HTTP) and pin its task id.

    ``segment_granularity`` (``DAY``, ``MONTH``, ...): the segments it writes; None keeps Druid's choice (the
    input's). ``tuning_config``: Druid's ``index_parallel`` tuning (``partitionsSpec``,
    ``maxNumConcurrentSubTasks``, ...); ``peak_slots`` follows ``maxNumConcurrentSubTasks`` (``k+1`` when k >= 2).
    Every problem is named with its field before anything is sent.
    """
    problems, bounds = one_interval_problems(datasource, interval, purpose="to compact",
                                             example="2026-07-01/2026-08-01")
    if bounds is None:
        raise SpecValidationError(problems, subject="compaction request")
    start, end = bounds
    buckets = buckets_of(segment_granularity) if segment_granularity is not None else None
    if isinstance(buckets, Buckets) and not (buckets.aligned(start) and buckets.aligned(end)):
        problems.append(SpecProblem(
            "interval", f"does not start and end on {buckets.label} buckets: Druid would fail the task (Interval "
            "to compact is not aligned with segmentGranularity)", value=interval,
            valid=f"an interval from one {buckets.label} boundary to another"))
    elif segment_granularity is not None and not isinstance(buckets, Buckets):
        problems.append(SpecProblem("segment_granularity", "is not a granularity this check can read",
                                    value=segment_granularity, valid="DAY, WEEK, MONTH, QUARTER, YEAR, HOUR, ..."))
    tuning = dict(tuning_config or {})
    workers = tuning.get("maxNumConcurrentSubTasks", 1)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        problems.append(SpecProblem("tuning_config.maxNumConcurrentSubTasks", "must be a positive integer",
                                    value=workers))
    if problems:
        raise SpecValidationError(problems, subject="compaction request")
    canonical = canonical_interval(interval)
    spec: dict[str, Any] = {
        "type": "compact",
        "dataSource": datasource,
        "ioConfig": {"type": "compact", "inputSpec": {"type": "interval", "interval": canonical}},
    }
    if segment_granularity is not None:
        spec["granularitySpec"] = {"segmentGranularity": segment_granularity.upper()}
    if tuning:
        spec["tuningConfig"] = {"type": "index_parallel", **tuning}
    task_id = base_task_id(spec, datasource, [canonical], idempotency_key, "compact")
    return CompactionPlan(canonical_json(spec), datasource, (canonical,), task_id, workers + 1 if workers >= 2 else 1)
