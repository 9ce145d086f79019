"""The one retry policy: capped exponential backoff with jitter, under an attempt cap and a deadline.

Pure: it decides *whether* and *how long*; the sync transport sleeps with ``time.sleep`` and the async one
with ``asyncio.sleep``. Only errors whose ``retryable`` flag is set are retried; fatal errors burn nothing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from druid_ingest.errors import DruidError

__all__ = ["RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff ``initial * multiplier**n`` capped at ``max_delay``, with "equal jitter" (half fixed, half random).

    ``max_attempts`` counts the first try. ``deadline`` (seconds) bounds one logical call including sleeps;
    a retry that would sleep past it is not made.

    The defaults keep retrying for at least 60 s (jitter at its lowest; at most ~120 s): a leader failover
    behind the Router answers 502 for about Druid's ZooKeeper session timeout (30 s by default) and a
    default client must ride that out (druid-contract §failover). Six attempts gave up after 8-16 s.
    """

    max_attempts: int = 10
    initial_delay: float = 0.5
    max_delay: float = 30.0
    multiplier: float = 2.0
    deadline: float = 300.0
    jitter: bool = True

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """Delay before retry number ``attempt`` (1 = the first retry)."""
        base = min(self.max_delay, self.initial_delay * self.multiplier ** max(0, attempt - 1))
        if not self.jitter:
            return base
        return base / 2 + (rng or random).uniform(0, base / 2)

    def next_delay(self, error: DruidError, attempt: int, elapsed: float) -> float | None:
        """Seconds to wait before trying again after ``attempt`` tries failed with ``error``, or None to stop."""
        if not error.retryable or attempt >= self.max_attempts:
            return None
        delay = self.backoff(attempt)
        if elapsed + delay > self.deadline:
            return None
        return delay

    @classmethod
    def no_retries(cls) -> RetryPolicy:
        return cls(max_attempts=1)

    def to_dict(self) -> dict[str, float | int | bool]:
        """Primitives only, so Airflow triggers can serialize it."""
        return {
            "max_attempts": self.max_attempts,
            "initial_delay": self.initial_delay,
            "max_delay": self.max_delay,
            "multiplier": self.multiplier,
            "deadline": self.deadline,
            "jitter": self.jitter,
        }
