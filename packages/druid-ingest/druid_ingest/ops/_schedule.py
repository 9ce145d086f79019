"""When a task wait looks next: sparse early, dense around the expected end, backing off past it.

With a :class:`~.history.DurationHistory` of the datasource's recent ingestions, a wait knows roughly when the
task will end: it looks first a little before the shortest usual run (``low``), then every ``step`` seconds
(the detection-latency budget) until a little after the longest one, then backs off to the fixed schedule's cap.
While the task waits for a lock or a slot, or without history, it uses the fixed :class:`~.retry.PollSchedule`
(``initial`` growing by ``multiplier`` to ``max_delay``). Pure: the wait supplies how long the task has been
running; no clock here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from druid_ingest.ops._history import DurationHistory
from druid_ingest.wire import PollSchedule

__all__ = ["DEFAULT_LATENCY", "DEFAULT_SPARSE_CAP", "PredictedSchedule"]

#: seconds between looks around the expected end: the detection latency to expect
DEFAULT_LATENCY = 15.0
#: the longest silence before the expected end (each such look also fetches a progress report)
DEFAULT_SPARSE_CAP = 600.0


@dataclass(frozen=True)
class PredictedSchedule:
    """Look times from history; ``fallback`` while the task is not running yet, or past every known duration."""

    history: DurationHistory
    fallback: PollSchedule = field(default_factory=PollSchedule)
    latency: float = DEFAULT_LATENCY
    sparse_cap: float = DEFAULT_SPARSE_CAP

    @property
    def step(self) -> float:
        """Dense spacing: a quarter of the usual spread (a tight history needs few looks to hit the end), at least
        a second or 0.5 % of the median run, at most the latency budget."""
        spread = self.history.high - self.history.low
        return min(self.latency, max(1.0, self.history.median / 200, spread / 4))

    def near_end(self, running_for: float) -> bool:
        """In the dense window around the expected end (a progress report there would only precede the final)."""
        return self.history.low - self.step <= running_for

    def next_delay(self, running_for: float, polls_past_end: int = 0) -> float:
        """Seconds until the next look for a task that has been running ``running_for`` seconds."""
        first = max(0.0, self.history.low - self.step / 2)
        last = self.history.longest + self.step
        if running_for < first - self.step / 4:  # closer than that to the first look: it is the dense window
            return min(first - running_for, self.sparse_cap)
        if running_for < last:
            return self.step
        return min(self.fallback.max_delay, self.step * self.fallback.multiplier ** (polls_past_end + 1))
