"""When a task wait looks next: sparse early, dense around the expected end, backing off past it.

With a :class:`~.history.DurationHistory` of the datasource's recent ingestions, a wait knows roughly when the
task will end: it looks first a little before the shortest usual run (``low``), then every ``step`` seconds
(the detection-latency budget; without a target, sooner while a quarter of the running time, or of the spread of
a group of similar runs near it, is shorter: ``dense_gap``) until a little after the longest one, then backs off
to the fixed schedule's cap.
While the task waits for a lock or a slot, or without history, it uses the fixed :class:`~.retry.PollSchedule`
(``initial`` growing by ``multiplier`` to ``max_delay``). Pure: the wait supplies how long the task has been
running; no clock here.

With a detection-latency target (``PollSchedule.detect_within``, T) the dense window is planned to keep it:

* without history (``fixed_delay``) every gap is at most T: the end is seen within T, always;
* with history the window is ``[low - margin, longest + margin]`` (``margin``: how far the true run times may
  reach past the sampled ones, plus the error of the run-start estimate), of width W. A look at t sees every end
  in (t - T, t], so k = ceil(W / T) looks are the fewest that leave no end in the window unseen for longer than
  T; they are spread evenly (W / k apart, the last at the window's end), which keeps the count and lowers the
  latency. Ends outside it (below the 5th percentile, or past every known run) are the ones the promise, "at
  p95", leaves out; past the window the looks start again T apart and back off.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from druid_ingest.ops._history import MIN_SAMPLES, DurationHistory, percentile
from druid_ingest.ops._poll_schedule import PollSchedule

__all__ = ["DEFAULT_LATENCY", "DEFAULT_SPARSE_CAP", "DENSE_SHARE", "PredictedSchedule", "fixed_delay", "group_spans",
           "quarter_spread", "run_groups"]

#: seconds between looks around the expected end: the detection latency to expect
DEFAULT_LATENCY = 15.0
#: without a target, a dense look comes at most this share of the running time after the last (at least a second,
#: at most ``step``): an end is seen within a quarter of the run's length, so a short run in a history whose runs
#: differ widely (``step`` is a quarter of their spread) is seen in a second or two, not up to ``step`` late
DENSE_SHARE = 0.25
#: the longest silence before the expected end (each such look also fetches a progress report): the default of
#: ``PollSchedule.check_every``
DEFAULT_SPARSE_CAP = PollSchedule().check_every or 600.0


def run_groups(runs: Sequence[float]) -> list[Sequence[float]]:
    """``runs`` (ascending) split where the next is longer by more than ``DENSE_SHARE`` of itself (a weekend's
    runs and a weekday's), keeping groups of at least ``MIN_SAMPLES``: fewer are outliers, not a size."""
    groups: list[Sequence[float]] = []
    first = 0
    for i in range(1, len(runs) + 1):
        if i == len(runs) or runs[i] - runs[i - 1] > DENSE_SHARE * runs[i]:
            if i - first >= MIN_SAMPLES:
                groups.append(runs[first:i])
            first = i
    return groups


def quarter_spread(median: float, low: float, high: float) -> float:
    """Dense spacing for runs of this median and 5th-95th percentiles: a quarter of their spread (a tight
    history needs few looks to hit the end), at least a second or 0.5 % of the median run."""
    return max(1.0, median / 200, (high - low) / 4)


@functools.lru_cache(maxsize=256)
def group_spans(runs: tuple[float, ...]) -> tuple[tuple[float, float, float], ...]:
    """Per group of ``runs`` (:func:`run_groups`): the running times its dense looks cover (its runs widened by
    two sample gaps, as ``margin`` widens the window) and their gap. Once per history, not per look: every wait
    of a datasource shares its history's ``runs``."""
    spans = []
    for group in run_groups(runs):
        gap = quarter_spread(percentile(group, 50), percentile(group, 5), percentile(group, 95))
        reach = max(gap, 2 * (group[-1] - group[0]) / (len(group) - 1))
        spans.append((group[0] - reach, group[-1] + reach, gap))
    return tuple(spans)


def fixed_delay(schedule: PollSchedule, poll: int) -> float:
    """The fixed schedule's delay after poll ``poll`` (1-based). With a target it grows to the target instead of
    ``max_delay``: without knowing when the task ends, gaps of at most T are the only way to promise T, and gaps
    of exactly T the cheapest."""
    if schedule.detect_within is None:
        return schedule.delay(poll)
    return min(schedule.detect_within, schedule.initial * schedule.multiplier ** max(0, poll - 1))


@dataclass(frozen=True)
class PredictedSchedule:
    """Look times from history; ``fallback`` while the task is not running yet, or past every known duration.

    ``start_error``: how far off the wait's estimate of the run's start may be (seconds either way); with a
    target the window widens by it on both sides. ``sparse_cap``: the longest silence before the window
    (default: ``fallback.check_every``; infinite when that is None)."""

    history: DurationHistory
    fallback: PollSchedule = field(default_factory=PollSchedule)
    latency: float = DEFAULT_LATENCY
    sparse_cap: float | None = None
    start_error: float = 0.0

    @property
    def silence(self) -> float:
        """The longest gap before the dense window: ``sparse_cap``, else the schedule's ``check_every``."""
        if self.sparse_cap is not None:
            return self.sparse_cap
        return self.fallback.check_every if self.fallback.check_every is not None else math.inf

    @property
    def target(self) -> float | None:
        return self.fallback.detect_within

    @property
    def step(self) -> float:
        """Dense spacing. With a target T: the window's width W over the fewest looks that keep T,
        W / ceil(W / T). Without: a quarter of the usual spread (a tight history needs few looks to hit the end),
        at least a second or 0.5 % of the median run, at most the latency budget."""
        if self.target is not None:
            width = self.window_end - self.window_start
            return width / math.ceil(width / self.target) if width > 0 else self.target
        return min(self.latency, quarter_spread(self.history.median, self.history.low, self.history.high))

    @property
    def margin(self) -> float:
        """How far past the sampled run times the true ones may reach, plus the run-start estimate's error.

        n runs span on average (n-1)/(n+1) of the true range and often much less when n is small (5 uniform
        runs span under half of it once in five histories), so each side gets two sample gaps, 2*spread/(n-1):
        with 5 runs the window is twice their span, with 50 about 1.08 times."""
        spread = self.history.longest - self.history.low
        return 2 * spread / max(1, self.history.samples - 1) + self.start_error

    @property
    def window_start(self) -> float:
        """Running time from which ends are to be seen within the step (with a target: the 5th percentile minus
        the margin)."""
        if self.target is None:
            return max(0.0, self.history.low - self.step / 2)
        return max(0.0, self.history.low - self.margin)

    @property
    def window_end(self) -> float:
        """Running time past which the wait backs off (past every known run, and the margin)."""
        if self.target is None:
            return self.history.longest + self.step
        return self.history.longest + self.margin

    @property
    def first_look(self) -> float:
        """The first dense look: at the window's start without a target (the old plan); with one, a step later
        (a look sees the ends of the target before it, so one at the start would see nothing)."""
        return self.window_start if self.target is None else self.window_start + self.step

    def near_end(self, running_for: float) -> bool:
        """In the dense window around the expected end (a progress report there would only precede the final)."""
        if self.target is None:
            return self.history.low - self.step <= running_for
        return self.first_look - self.step <= running_for

    def dense_gap(self, running_for: float) -> float:
        """Without a target, the gap after a dense look at ``running_for``: ``step``, or a quarter of the running
        time when shorter (at least a second: ``DENSE_SHARE``), or, within a group of similar runs
        (:func:`run_groups`, widened by two sample gaps as ``margin`` is), a quarter of that group's spread when
        tighter (at least a second or 0.5 % of its median). A history of two sizes (7 s and 44-60 s runs: ``step``
        13 s) then looks ~3.5 s apart near the long runs, as a history of those alone would, not 13 s."""
        gap = min(self.step, max(1.0, DENSE_SHARE * running_for))
        for start, end, group_gap in group_spans(self.history.runs):
            if start <= running_for < end:
                gap = min(gap, group_gap)
        return gap

    def next_delay(self, running_for: float, polls_past_end: int = 0) -> float:
        """Seconds until the next look for a task that has been running ``running_for`` seconds."""
        first = self.first_look
        if running_for < first - self.step / 4:  # closer than that to the first look: it is the dense window
            return min(first - running_for, self.silence)
        if self.target is None:
            if running_for < self.window_end:
                return self.dense_gap(running_for)
            return min(self.fallback.max_delay, self.step * self.fallback.multiplier ** (polls_past_end + 1))
        if running_for < self.window_end - self.step / 4:  # within a hair of the window's end: its last look
            return self.step
        # past every known run: the first gap is still the target (a run just longer than the history is the
        # likeliest outlier), then the backoff, capped at max_delay or the target, whichever is longer
        cap = max(self.target, self.fallback.max_delay)
        return min(cap, self.target * self.fallback.multiplier ** max(0, polls_past_end - 1))
