"""When a handoff wait looks at the gate after its task's SUCCESS: often through the window in which the
handoff usually completes, then the ordinary backoff.

The handoff (publish → the Coordinator assigns → a Historical loads → the Broker sees it) takes seconds and
varies little on one cluster: 2.7-8.9 s on Druid 33 (the dev deployment, issue 31). Looking at the existing
backoff (5 → 7.5 → 11 s) after it, the wait saw the data served 2.9-9.0 s late, most of an end→green of ~13.5 s.
A look between two others sees what became served in the gap since the previous one, so looks ``step`` (1 s)
apart through the window keep that lag under a second; each costs one ids-only served listing (the Broker is
asked only once everything is served: ``gate_step``). Before and after the window the looks would only find
"not yet" (before) or a handoff already late (after, where the backoff caps the cost of a stuck one).

The first look comes at the quickest delay learned (their 5th percentile), not before it: on a cluster whose
handoffs vary little a look a step earlier found "not yet" every time (one more served listing per ingestion, P1),
and on one whose handoffs vary it finds "not yet" 95 % of the time however early it is. A delay seen at the first
look is recorded as that look's time (an upper bound), so looking only at the quickest would never learn that the
handoffs got quicker: every ``EXPLORE_EVERY``-th wait (``explore``) looks a step earlier, which costs one listing
then and moves the window a step down each time it finds the data already there. Where the delays vary by more
than a step, the wait after one whose first look found the data looks a step earlier too (``explores``): a
quick handoff there is common, and the window follows it down a step per wait, not per ``EXPLORE_EVERY``.

Pure: the wait supplies the seconds since the task ended (as it saw it); no clock here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from druid_ingest.ops._history import percentile
from druid_ingest.ops._poll_schedule import PollSchedule

__all__ = ["DENSE_STEP", "EXPLORE_EVERY", "FIRST_LOOK", "HIGH_MARGIN", "MIN_DELAYS", "SETTLED_DELAYS", "WINDOW_END",
           "HandoffLooks"]

#: seconds between looks in the window: the served → seen lag to expect (goal: <= 2 s at p95, issue 31)
DENSE_STEP = 1.0
#: without learned delays, the first look: no handoff completes sooner (the Coordinator must see the publish and
#: assign the load in a duty cycle, the Historical must load it; the quickest seen on Druid 33 took 2.7 s)
FIRST_LOOK = 2.0
#: without learned delays, the window's end (seconds after the end): the slowest seen on Druid 33 (8.9 s) with a
#: third to spare; at most 11 looks, paid only until this process has seen ``MIN_DELAYS`` handoffs
WINDOW_END = 12.0
#: with learned delays the window ends at their 95th percentile times this (a handoff a quarter slower than the
#: slow ones seen is still a usual one; past that it is late, and the backoff looks for it)
HIGH_MARGIN = 1.25
#: learned delays needed before the window is planned from them (two give a spread, however rough)
MIN_DELAYS = 2
#: until this many are learned the window still reaches ``WINDOW_END``: a datasource's first handoffs can all be
#: quick on a cluster whose handoffs vary (dev Druid 33: 1.2-2.0 s, then 6.6 s, seen 2.6 s late on the backoff);
#: looking on costs a listing a second only while the data is not served yet
SETTLED_DELAYS = 5
#: one wait in this many (per datasource, by the delays recorded so far) looks first a step before the quickest
#: delay learned, to learn that handoffs got quicker (the others look at it): 1/4 of a served listing per ingestion
#: for a window that follows a quicker cluster a step per 4 ingestions
EXPLORE_EVERY = 4


@dataclass(frozen=True)
class HandoffLooks:
    """Look ``first`` seconds after the end, then every ``step`` until ``until``, then ``fallback``'s delays
    from its first (the existing schedule: 5 → 7.5 → 11 s … by default)."""

    first: float
    until: float
    fallback: PollSchedule
    step: float = DENSE_STEP

    @classmethod
    def plan(cls, delays: Sequence[float], schedule: PollSchedule, explore: bool = False) -> HandoffLooks:
        """From the delays (seconds, end → loaded as a wait saw them) this process learned: the first look at their
        5th percentile (nearest rank: the quickest of up to 20), or a step before it when ``explore`` (a delay
        seen at the first look is recorded as that look's time, so only a look before the quickest learns that
        handoffs got quicker: module doc), the window to their 95th percentile times ``HIGH_MARGIN`` (at least to
        ``WINDOW_END`` while fewer than ``SETTLED_DELAYS`` are known). Without (fewer than ``MIN_DELAYS``):
        ``FIRST_LOOK`` to ``WINDOW_END``. A schedule that polls faster than the step
        (a test's, a user's) keeps its own pace."""
        step = min(DENSE_STEP, schedule.initial)
        if len(delays) < MIN_DELAYS:
            return cls(min(FIRST_LOOK, schedule.initial), WINDOW_END, schedule, step)
        low, high = percentile(delays, 5), percentile(delays, 95)
        first = max(0.0, low - step) if explore else low
        until = max(high * HIGH_MARGIN, high + 2 * step)
        if len(delays) < SETTLED_DELAYS:
            until = max(until, WINDOW_END)
        return cls(first, until, schedule, step)

    @staticmethod
    def explores(recorded: int, found_at_first: bool = False, delays: Sequence[float] = ()) -> bool:
        """Whether the wait after ``recorded`` delays of its datasource looks a step early: every
        ``EXPLORE_EVERY``-th, and the one after a wait whose first look found the data loaded when the delays
        vary by more than a step (5th to 95th percentile): that delay was an upper bound, and on such a cluster
        the data is often served sooner (on the dev Druid 33, 1.1-6.8 s: two slow first handoffs put the first
        look at 5.2 s, and 1.6 s ones were seen 3.4 s late for a dozen waits). On a steady cluster the first
        look finds the data every time by design, and only every ``EXPLORE_EVERY``-th wait looks earlier."""
        varies = len(delays) >= MIN_DELAYS and percentile(delays, 95) - percentile(delays, 5) > DENSE_STEP
        return recorded % EXPLORE_EVERY == 0 or (found_at_first and varies)

    def dense(self, since_end: float) -> bool:
        """Whether a look ``since_end`` seconds after the end is one of the window's (or the first)."""
        return since_end < self.until - self.step / 4

    def next_delay(self, since_end: float, past_window: int) -> float:
        """Seconds until the next look, for a look ``since_end`` seconds after the end; ``past_window``: the looks
        already taken past the window (1 for the first of them)."""
        if self.dense(since_end):
            return self.step
        return self.fallback.delay(max(1, past_window))
