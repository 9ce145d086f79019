"""A segment write, written once for every kind that is one request to Druid's segment write API (a drop): the
request through the API the cluster's version serves, then a wait for the state the plan wants
(:attr:`~druid_ingest.planning.SegmentWrite.wants_served`).

Unserved (a drop): green once the Coordinator's inventory lists no segment inside the interval and the Broker routes
no query there, so a query of the interval reads no row. Served: green once every data segment of the used,
visible (non-overshadowed) sets in the interval is in the Coordinator's inventory and the Broker lists them as its
candidates, so a query reads them; an interval showing no data segment at all is refused
(``DruidNothingToRestoreError``: Druid answers a ``markUsed`` of nothing with 200, and green would then mean a query
reading no row) unless the plan's ``allow_empty``. The used-segment listing reads the metadata store, which the
request has already changed, so the first look tells. A write racing an ingestion of the interval (Druid calls
mixing the two undefined) shows as a state never reached: the wait times out naming what is still (or not yet) served.

Why refuse a cut, for every write that unserves: Druid marks only segments *contained* in the interval, so a
segment reaching outside it stays used: if it is visible in the interval once the segments inside are gone (now,
or an older version the write removes overshadowed), its rows there stay readable. The write names it and the
interval that would hold it. A rule of the target state, not of a kind.

Which API: the version ``GET /status`` reports picks it (``planning.segment_write_api``: the Overlord's from
Druid 32, the Coordinator's before), one extra GET per write, logged with what it picked.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from druid_ingest.api import Segment
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidNothingToRestoreError, DruidUsageError, DruidWaitTimeoutError
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.ops._schedule import fixed_delay
from druid_ingest.ops.gate.timeline import IntervalIndex, contains, visible
from druid_ingest.ops.gate.verdict import span_of
from druid_ingest.planning import SegmentWritePlan, segment_write_api
from druid_ingest.wire import Operation, Progress, Sleep, call

__all__ = ["SegmentWriteResult", "cut_segments", "nothing_to_restore", "segment_write", "watch_segment_state",
           "write_segments"]

Clock = Callable[[], float]
log = logging.getLogger("druid_ingest.segment_write")


def marking(wants_served: bool) -> str:
    """What the request does, in the words of the state it wants."""
    return "marking used" if wants_served else "marking unused"


@dataclass(frozen=True)
class SegmentWriteResult:
    """A finished segment write: how many segments this run changed (0 when an earlier try already had) and, for a
    served state, how many data segments are served in the interval."""

    name: str
    datasource: str
    interval: str
    marked: int
    wants_served: bool
    served: int = 0

    @property
    def detail(self) -> str:
        if self.wants_served and not self.served:  # allow_empty: nothing there, taken as green
            return (f"{self.name}: {self.interval} of {self.datasource!r}: nothing to restore ({self.marked} "
                    "segment(s) marked used by this run, no data segment visible in the interval): green with "
                    "allow_empty=True, a query reads no row there")
        if self.wants_served:
            return (f"{self.name}: {self.interval} of {self.datasource!r} served: {self.marked} segment(s) marked used "
                    f"by this run; the {self.served} data segment(s) visible in the interval are served and the "
                    "Broker routes queries to them")
        return (f"{self.name}: {self.interval} of {self.datasource!r} unserved: {self.marked} segment(s) marked "
                "unused by this run; nothing in the interval is served (the Coordinator lists none, the Broker "
                "routes to none)")


def cut_segments(used: list[Segment], interval: str) -> list[Segment]:
    """The data segments queries would still read in ``interval`` once the segments inside it are unused: those
    reaching outside it (markUnused leaves them) that are visible there then, whether they are visible now or come
    back from under a newer version the write removes."""
    staying = [s for s in used if not contains(interval, s.interval)]
    cut = {s.segment_id: s for p in visible(staying, [interval]) if not p.tombstone_only for s in p.segments}
    return sorted(cut.values(), key=lambda s: s.segment_id)


def write_segments(plan: SegmentWritePlan) -> Operation[int]:
    """Refuse a cut when the write unserves (DruidUsageError, nothing sent), else send the plan's request through
    the API the cluster's version serves (logged and yielded as Progress); the count Druid changed."""
    interval = plan.intervals[0]
    if not plan.wants_served:
        used = yield from call(ep.used_segments(plan.datasource, [interval]), ep.parse_used_segments)
        cut = cut_segments(used, interval)
        if cut:
            raise DruidUsageError(
                f"{plan.base_task_id}: marking {interval} of {plan.datasource!r} unused would leave {len(cut)} "
                "segment(s) served: Druid marks only segments inside the interval, and these reach outside it: "
                f"{', '.join(s.segment_id for s in cut[:5])}{' ...' if len(cut) > 5 else ''}. Mark "
                f"{span_of([*cut, Segment('', interval, '', 0)])} unused (the smallest interval holding them), or "
                "compact the interval to segments inside it first; nothing was marked unused")
    found = yield from call(ep.druid_version(), ep.parse_druid_version)
    api = segment_write_api(found.version)
    line = f"{plan.base_task_id}: {api.describe(found.version, found.answered_by, marking(plan.wants_served))}"
    log.info(line)
    yield Progress(line)
    return (yield from call(plan.write_request(api), ep.parse_segment_update))


def _unserved_look(datasource: str, interval: str) -> Operation[str | None]:
    """None once nothing in ``interval`` is served nor routed; else what still is."""
    served = yield from call(ep.served_segments(datasource, interval), ep.parse_served_segments)
    if served:
        return f"{len(served)} segment(s) still served in {interval}"
    routed = yield from call(ep.broker_candidates(datasource, [interval]), ep.parse_broker_candidates)
    return f"the Broker still routes queries of {interval} to {len(routed)} segment(s)" if routed else None


def _data_partitions(segments: tuple[Segment, ...]) -> set[int]:
    return {s.partition_num for s in segments if not s.is_tombstone}


def _served_look(datasource: str, interval: str) -> Operation[tuple[int, str | None]]:
    """(data segments visible in ``interval``, None once all are served and routed, else what is missing)."""
    used = yield from call(ep.used_segments(datasource, [interval]), ep.parse_used_segments)
    pieces = [p for p in visible(used, [interval]) if not p.tombstone_only]
    wanted = {s.segment_id: s for p in pieces for s in p.segments if not s.is_tombstone}
    if not wanted:
        return 0, None
    served = yield from call(ep.served_segments(datasource, span_of(list(wanted.values()))), ep.parse_served_segments)
    missing = sorted(set(wanted) - served)
    if missing:
        return len(wanted), (f"{len(missing)} of {len(wanted)} segment(s) visible in {interval} not served yet "
                             f"(first: {missing[0]})")
    candidates = IntervalIndex((yield from call(ep.broker_candidates(datasource, [interval]),
                                                ep.parse_broker_candidates)))
    lagging = [p for p in pieces if not _data_partitions(p.segments) <= {
        c.partition_num for c in candidates.overlapping(p.interval) if c.version == p.version}]
    if lagging:
        return len(wanted), (f"the Broker does not route queries of {len(lagging)} piece(s) of {interval} to "
                             f"them yet (first: {lagging[0].interval})")
    return len(wanted), None


def nothing_to_restore(datasource: str, interval: str, name: str, marked: int) -> DruidNothingToRestoreError:
    """The refusal of a served state over an interval showing no data segment, with its opt-out."""
    what = f"{marked} segment(s) marked used by this run, only tombstones" if marked else "no segment marked used"
    return DruidNothingToRestoreError(
        f"{name}: nothing to restore in {interval} of {datasource!r}: {what}, and no data segment is visible "
        "there (never ingested, or killed: a kill deletes unused segments for good), so a query reads no row. If "
        "an empty interval is expected, pass allow_empty=True (CLI: --allow-empty) to take it as green",
        datasource=datasource, interval=interval, marked=marked)


def watch_segment_state(
    datasource: str, interval: str, name: str, wants_served: bool, marked: int, deadline: float,
    schedule: PollSchedule | None = None, clock: Clock = time.time, *, allow_empty: bool = False,
) -> Operation[SegmentWriteResult]:
    """Look until ``interval`` of ``datasource`` is in the state wanted (see the module docstring);
    DruidWaitTimeoutError at ``deadline`` naming what is still (or not yet) served; a served state over no data
    segment raises :func:`nothing_to_restore`'s error unless ``allow_empty``. Each look that is not green yields a
    Progress line."""
    schedule = schedule or PollSchedule()
    polls = 0
    while True:
        count, still = 0, None
        if wants_served:
            count, still = yield from _served_look(datasource, interval)
            if count == 0 and not allow_empty:
                raise nothing_to_restore(datasource, interval, name, marked)
        else:
            still = yield from _unserved_look(datasource, interval)
        if still is None:
            return SegmentWriteResult(name, datasource, interval, marked, wants_served, count)
        yield Progress(f"{name}: {still}")
        remaining = deadline - clock()
        if remaining <= 0:
            raise DruidWaitTimeoutError(f"{name}: {still} at the deadline")
        polls += 1
        yield Sleep(min(fixed_delay(schedule, polls), remaining))


def segment_write(plan: SegmentWritePlan, timeout: float, schedule: PollSchedule | None = None,
                  clock: Clock = time.time) -> Operation[SegmentWriteResult]:
    """The whole write: :func:`write_segments`, then :func:`watch_segment_state` for at most ``timeout`` seconds."""
    marked = yield from write_segments(plan)
    return (yield from watch_segment_state(plan.datasource, plan.intervals[0], plan.base_task_id, plan.wants_served,
                                           marked, clock() + timeout, schedule, clock, allow_empty=plan.allow_empty))
