"""The handoff wait, written once for every face: after a task's SUCCESS, look at the gate until its segments are
queryable (or will never be, or the deadline), at the times the datasource's own handoff delays plan
(``gate/looks.py``), and keep this wait's delay for the next one.

Every handoff wait runs it: the operators' and the core's ``ingest`` (``watch_ingestion``), the Airflow handoff
sensor and trigger and the Dagster wait op and blocking check (the clients' ``watch_handoff`` /
``wait_for_handoff``). So one place decides when the gate is looked at; a face passes its schedule (the pace and
the backoff past the window), never its own look times.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from druid_ingest.api import HandoffResult, HandoffTarget
from druid_ingest.errors import DruidError
from druid_ingest.ops._history import WaitMemory
from druid_ingest.ops._outage import Outage, is_transient
from druid_ingest.ops._outcomes import HandoffOutcome
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.ops.gate.looks import HandoffLooks
from druid_ingest.ops.gate.steps import gate_chunks, gate_step
from druid_ingest.wire import Operation, Progress, Sleep

__all__ = ["NEVER_PROBE_EVERY", "REREAD_EVERY", "watch_handoff"]

Clock = Callable[[], float]
#: handoff looks between two reads of the metadata store (a later replace or a compaction changes what must be
#: served). Correctness does not rest on it: a look that asks handoffComplete reads the metadata first.
REREAD_EVERY = 5
#: seconds between two "will this segment ever load?" questions (handoffComplete) while segments are missing
NEVER_PROBE_EVERY = 60.0


def watch_handoff(
    target: HandoffTarget,
    deadline: float,
    schedule: PollSchedule | None = None,
    clock: Clock = time.time,
    memory: WaitMemory | None = None,
    ended_at: float | None = None,
) -> Operation[HandoffOutcome]:
    """Check the gate until done (loaded, nothing, superseded), ``never``, or ``deadline`` (``clock()`` time).

    The looks are :class:`HandoffLooks` planned from the handoff delays ``memory`` kept for the target's
    datasource (none: the fixed window), placed from when the task ended: ``ended_at`` (``clock()`` time) when the
    caller saw it, else the target's ``ended_at`` (Druid's createdTime + duration), else now. A wait that starts
    long after the end finds the window behind it and looks at once, then on ``schedule``'s backoff. A loaded
    result teaches ``memory`` its delay, unless the end is unknown or the look that found it was made at once (a
    wait that starts late only learns the handoff took less than its lateness).
    """
    schedule = schedule or PollSchedule()
    started = clock()
    known_end = ended_at if ended_at is not None else target.ended_at
    since = started if known_end is None else min(started, known_end)
    key = (memory.cluster, target.datasource) if memory is not None else None
    seen = memory.handoffs.recent(key) if memory is not None and key else []
    explore = (HandoffLooks.explores(memory.handoffs.recorded(key), memory.handoffs.found_at_first_look(key), seen)
               if memory is not None and key else False)
    looks = HandoffLooks.plan(seen, schedule, explore)
    outcome = yield from _look(target, deadline, schedule, clock, looks, since)
    at_once = since + looks.first <= started and clock() - started < looks.step / 2
    loaded = outcome.result is not None and outcome.result.state == "loaded"
    if memory is not None and key and known_end is not None and loaded and not at_once:
        delay = clock() - since
        memory.handoffs.record(key, delay, at_first_look=delay < looks.first + looks.step / 2)
    return outcome


def _look(
    target: HandoffTarget, deadline: float, schedule: PollSchedule, clock: Clock, looks: HandoffLooks, begun: float,
) -> Operation[HandoffOutcome]:
    """The looks themselves: the first ``looks.first`` after ``begun`` (the end), then ``looks.step`` apart through
    the window, then ``schedule``'s backoff.

    The metadata store is read once, then every ``REREAD_EVERY`` looks (a later replace changes what must be
    served); between those a look is the ids-only served listing (and the Broker once served). Whether a missing
    segment will never load is first asked at the second pending look (right after publishing nothing is loaded
    yet, so the first look would only waste the question), then every ``NEVER_PROBE_EVERY`` seconds; each such
    look re-reads the metadata first (a segment a newer version overshadows is not required, never "never") and
    keeps that fresh plan. From the second such question on, a wait still pending also asks why (no Historical,
    caches full: ``loading_note``), and its pending lines say so. The window's looks after the first are served
    listings only: the metadata re-read and the never question wait for the looks past it (the window is the
    usual handoff: a segment missing in it is not suspicious yet). Yields each pending HandoffResult as progress.
    """
    polls = 0
    first = min(max(0.0, begun + looks.first - clock()), max(0.0, deadline - clock()))
    if first > 0:
        yield Sleep(first)
    probed_at: float | None = None
    pending_looks = 0
    plan = yield from gate_chunks(target)
    outage = Outage(f"the segments of Druid task {target.task_id}")
    while True:
        dense = pending_looks >= 1 and looks.dense(clock() - begun)
        probe = not dense and pending_looks >= 1 and (probed_at is None or clock() - probed_at >= NEVER_PROBE_EVERY)
        result: HandoffResult
        try:
            ask_why = probe and probed_at is not None
            result, plan = yield from gate_step(target, plan, probe_never=probe, ask_why=ask_why)
        except DruidError as exc:  # as in watch_task: an outage is ridden out until the gate's own deadline
            now = clock()
            if not is_transient(exc) or now >= deadline:  # the first look too: a blip as the task ends
                raise
            outage.failed(exc, now)
            polls += 1
            yield Sleep(min(schedule.delay(polls), deadline - now))
            continue
        outage.recovered(clock())
        if probe and result.missing:
            probed_at = clock()
        pending_looks += 1
        if result.done or result.state == "never":
            return HandoffOutcome.of(target.task_id, target.datasource, result)
        yield Progress(result)
        remaining = deadline - clock()
        if remaining <= 0:
            return HandoffOutcome.of(target.task_id, target.datasource, result)  # kind "timeout"
        if looks.dense(clock() - begun):
            yield Sleep(min(looks.step, remaining))  # a dense look: no count, no re-read (``looks``)
            continue
        polls += 1
        yield Sleep(min(looks.next_delay(clock() - begun, polls), remaining))
        if polls % REREAD_EVERY == 0:
            plan = replace((yield from gate_chunks(target)), why=plan.why)
