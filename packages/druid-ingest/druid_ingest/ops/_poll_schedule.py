"""How often a wait looks: the one cadence setting every wait takes (a task wait, the handoff gate, a drop's
unloading), checked when it is built so a bad knob fails before any HTTP."""

from __future__ import annotations

import math
from dataclasses import dataclass

from druid_ingest.errors import DruidUsageError

__all__ = ["PollSchedule"]


@dataclass(frozen=True)
class PollSchedule:
    """How often to look while waiting on Druid: ``initial`` growing by ``multiplier`` up to ``max_delay``.

    Deterministic (no jitter) so a wait's cost is predictable: polls at the ceiling after
    ``log(max_delay/initial)/log(multiplier)`` polls.

    ``detect_within`` (seconds, optional): the detection-latency target of a *task* wait: its end is seen within
    that long (with the datasource's history: at p95 of the usual run times; without: always), with as few status
    reads as that allows (``ops._schedule``). It then caps the task wait's delays instead of ``max_delay``, which
    stays the cap of the backoff past every run time the history knows. ``initial`` may not exceed it (the first
    delay is itself a gap the target must cover). Handoff waits do not use it.

    ``check_every`` (seconds, default 600; None: none): with the datasource's history, the longest a task wait stays
    silent before the task's usual end; each such safety look sees a task that failed mid-run and logs progress.
    None trusts the history: no look until the dense window (a mid-run failure is then seen there).
    """

    initial: float = 2.0
    max_delay: float = 30.0
    multiplier: float = 1.5
    detect_within: float | None = None
    check_every: float | None = 600.0

    def __post_init__(self) -> None:
        every = self.check_every
        if every is not None and (isinstance(every, bool) or not isinstance(every, int | float)
                                  or not math.isfinite(every) or every <= 0):
            raise DruidUsageError(
                f"check_every={every!r}: expected a positive, finite number of seconds (the longest silence before "
                "a task's usual end), e.g. check_every=1800, or None for no safety looks")
        target = self.detect_within
        if target is None:
            return
        if isinstance(target, bool) or not isinstance(target, int | float) or not math.isfinite(target) or target <= 0:
            raise DruidUsageError(
                f"detect_within={target!r}: expected a positive, finite number of seconds (the longest a task's end "
                "may go unseen), e.g. detect_within=30, or None for no target")
        if self.initial > target:
            raise DruidUsageError(
                f"poll_interval={self.initial!r} is longer than detect_within={target!r}: the first look after the "
                "submit would already miss the target; pass poll_interval <= detect_within, or a larger "
                "detect_within")

    def delay(self, poll: int) -> float:
        """Seconds to wait after poll number ``poll`` (1-based)."""
        return min(self.max_delay, self.initial * self.multiplier ** max(0, poll - 1))
