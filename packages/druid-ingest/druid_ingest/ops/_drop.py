"""A drop, written once: refuse an interval that cuts a served segment, mark the interval unused, then wait until
nothing in it is served (the Coordinator's inventory lists no segment inside it and the Broker routes no query
there). Green means a query of the interval reads no row.

Why refuse a cut: Druid marks only segments *contained* in the interval, so a segment reaching outside it stays
used: if it is visible in the interval once the segments inside are gone (now, or an older version the dropped
one overshadowed), its rows there stay readable. The drop names it and the interval that would hold it.
An ingestion writing the interval meanwhile (Druid calls mixing the two undefined) shows as a segment still
served, so the wait never goes green on it: it times out naming what is still served.

Which markUnused API: the version ``GET /status`` reports picks it (``planning.segment_write_api``: the Overlord's
from Druid 32, the Coordinator's before), one extra GET per drop, logged with what it picked.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from druid_ingest.api import Segment
from druid_ingest.api import endpoints as ep
from druid_ingest.ops._schedule import fixed_delay
from druid_ingest.ops.gate.timeline import contains, visible
from druid_ingest.ops.gate.verdict import span_of
from druid_ingest.planning import DropPlan, segment_write_api
from druid_ingest.wire import DruidUsageError, DruidWaitTimeoutError, Operation, PollSchedule, Progress, Sleep, call

__all__ = ["DropResult", "drop", "mark_dropped", "watch_unserved"]

Clock = Callable[[], float]
log = logging.getLogger("druid_ingest.drop")


@dataclass(frozen=True)
class DropResult:
    """A finished drop: how many segments this run marked unused (0 when an earlier try already had)."""

    name: str
    datasource: str
    interval: str
    marked: int

    @property
    def detail(self) -> str:
        return (f"dropped {self.interval} of {self.datasource!r}: {self.marked} segment(s) marked unused by this "
                "run; nothing in the interval is served (the Coordinator lists none, the Broker routes to none)")


def cut_segments(used: list[Segment], interval: str) -> list[Segment]:
    """The data segments queries would still read in ``interval`` after the drop: those reaching outside it
    (markUnused leaves them) that are visible there once the segments inside it are gone, whether they are
    visible now or come back from under a newer version the drop removes."""
    staying = [s for s in used if not contains(interval, s.interval)]
    cut = {s.segment_id: s for p in visible(staying, [interval]) if not p.tombstone_only for s in p.segments}
    return sorted(cut.values(), key=lambda s: s.segment_id)


def mark_dropped(plan: DropPlan) -> Operation[int]:
    """Refuse a cut (DruidUsageError), else mark the interval's segments unused through the API the cluster's version
    serves (logged and yielded as Progress); the count Druid changed."""
    interval = plan.intervals[0]
    used = yield from call(ep.used_segments(plan.datasource, [interval]), ep.parse_used_segments)
    cut = cut_segments(used, interval)
    if cut:
        raise DruidUsageError(
            f"the drop of {interval} of {plan.datasource!r} would leave {len(cut)} segment(s) served: Druid marks "
            f"only segments inside the interval, and these reach outside it: {', '.join(s.segment_id for s in cut[:5])}"
            f"{' ...' if len(cut) > 5 else ''}. Drop {span_of([*cut, Segment('', interval, '', 0)])} (the "
            "smallest interval holding them), or compact the interval to segments inside it first; nothing was "
            "marked unused")
    found = yield from call(ep.druid_version(), ep.parse_druid_version)
    api = segment_write_api(found.version)
    line = f"drop {plan.base_task_id}: {api.describe(found.version, found.answered_by)}"
    log.info(line)
    yield Progress(line)
    return (yield from call(plan.mark_unused_request(api), ep.parse_mark_unused))


def watch_unserved(plan: DropPlan, marked: int, deadline: float, schedule: PollSchedule | None = None,
                   clock: Clock = time.time) -> Operation[DropResult]:
    """Look until the Coordinator serves nothing inside the interval and the Broker lists no candidate there;
    DruidWaitTimeoutError at ``deadline`` naming what is still served. Each look yields the still-served count."""
    schedule = schedule or PollSchedule()
    interval, polls = plan.intervals[0], 0
    while True:
        served = yield from call(ep.served_segments(plan.datasource, interval), ep.parse_served_segments)
        routed = [] if served else (
            yield from call(ep.broker_candidates(plan.datasource, [interval]), ep.parse_broker_candidates))
        if not served and not routed:
            return DropResult(plan.base_task_id, plan.datasource, interval, marked)
        still = (f"{len(served)} segment(s) still served in {interval}" if served
                 else f"the Broker still routes queries of {interval} to {len(routed)} segment(s)")
        yield Progress(f"drop {plan.base_task_id}: {still}")
        remaining = deadline - clock()
        if remaining <= 0:
            raise DruidWaitTimeoutError(f"drop {plan.base_task_id}: {still} at the deadline")
        polls += 1
        yield Sleep(min(fixed_delay(schedule, polls), remaining))


def drop(plan: DropPlan, timeout: float, schedule: PollSchedule | None = None,
         clock: Clock = time.time) -> Operation[DropResult]:
    """The whole drop: :func:`mark_dropped`, then :func:`watch_unserved` for at most ``timeout`` seconds."""
    marked = yield from mark_dropped(plan)
    return (yield from watch_unserved(plan, marked, clock() + timeout, schedule, clock))
