"""The gate looks a face's handoff wait made, read from the fake Druid's request log, checked against the core's
one rule (``HandoffLooks`` from the datasource's handoff delays, placed from the task's end).

A face test plants handoff delays in the process-wide memory every client shares, runs its wait right after the
task ended, and checks: no look before the planned first one (the old fixed schedule looked at once), the looks a
step apart through the window (the old one backed off 1.5x), and the delay this wait saw kept for the next one.
"""

from __future__ import annotations

import itertools

import pytest
from druid_ingest.ops import PollSchedule, _history
from druid_ingest.ops._handoff_latencies import HandoffLatencies
from druid_ingest.ops.gate.looks import HandoffLooks
from druid_ingest.testing import FakeDruid

#: the fake's handoff (publish -> served), and the delays planted as if this process had seen three such
HANDOFF = 3.0
PLANTED = [HANDOFF] * 3
#: a face's schedule for these tests: a one-second pace, so the window's step is the core's (1 s)
SCHEDULE = PollSchedule(1.0, 5.0, 1.5)


def looks_fake(**kw: object) -> FakeDruid:
    """A fake whose task ends at once and whose segments are served ``HANDOFF`` seconds after the publish."""
    return FakeDruid(task_duration=0.3, pending_delay=0.0, handoff_delay=HANDOFF, coordinator_period=0.1, **kw)


def plant(monkeypatch: pytest.MonkeyPatch, cluster: str, datasource: str) -> HandoffLatencies:
    """Fresh process-wide handoff delays (restored after the test) holding ``PLANTED`` for the datasource; clients
    built after this learn from and into it."""
    memory = HandoffLatencies()
    for delay in PLANTED:
        memory.record((cluster, datasource), delay)
    monkeypatch.setattr(_history, "HANDOFF_LATENCIES", memory)
    return memory


def gate_looks(fake: FakeDruid, datasource: str, after: float = 0.0) -> list[float]:
    """When (epoch seconds) each served listing of ``datasource`` came, from ``after`` on: one per gate look."""
    return [r.time for r in fake.requests
            if r.method == "GET" and f"/datasources/{datasource}/intervals/" in r.path and r.time >= after]


def assert_on_core_looks(times: list[float], ended_at: float, schedule: PollSchedule = SCHEDULE) -> HandoffLooks:
    """The looks ``times`` follow the core's ``HandoffLooks`` for ``PLANTED`` from ``ended_at``: the first not
    before its planned time, the window's a step apart."""
    looks = HandoffLooks.plan(PLANTED, schedule)
    assert times, "the wait never looked at the gate"
    assert times[0] >= ended_at + looks.first - 0.05, (times[0] - ended_at, looks)
    window = [t for t in times if t - ended_at < looks.until - looks.step / 4]
    gaps = [b - a for a, b in itertools.pairwise(window)]
    assert all(0.8 * looks.step <= gap <= 1.6 * looks.step for gap in gaps), (gaps, looks)
    return looks


def assert_learned(memory: HandoffLatencies, cluster: str, datasource: str) -> None:
    """The wait kept the delay it saw (the task's end to loaded) for the next wait of the datasource."""
    seen = memory.recent((cluster, datasource))
    assert len(seen) == len(PLANTED) + 1, seen
    assert HANDOFF - 0.5 <= seen[-1] <= HANDOFF + 2.0, seen
