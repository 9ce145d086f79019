"""A simulated clock the fake Druid and a client share: a sleep advances it instead of waiting.

Give ``now`` to ``FakeDruid(clock=...)`` and ``now``/``sleep`` to ``DruidClient(clock=..., sleep=...)``: an hour
of polling then takes seconds, and request counts and detection latencies depend only on the schedule, not on
the machine or its load. The P1 benchmark and the detection-latency tests run on it (stdlib only, so the P1 run
of the official provider, in a venv of its own, can use it too).
"""

from __future__ import annotations

__all__ = ["SimClock"]

START = 1_790_000_000.0  # epoch seconds (2026-09-21 14:13:20 UTC): a fixed instant, so runs repeat exactly


class SimClock:
    """Epoch seconds that move only when someone sleeps (a negative sleep is none)."""

    def __init__(self, start: float = START) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)
