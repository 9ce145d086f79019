"""A wait rides out a transient outage until its own deadline, and says so while it lasts.

One HTTP call's retry budget (``RetryPolicy``) ends that call, not the wait: a wait that catches the call's
``DruidRetriesExhaustedError`` (or a bare transient error) looks again until its deadline, and logs when the
outage starts, about once a minute while it lasts (how long, the last error), and when it ends. Fatal answers
(401/403, an unknown task) are not transient and still end the wait. Both clients drive the same waits, so the
sync client and the Airflow trigger share this rule.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from druid_ingest.errors import DruidError, DruidRetriesExhaustedError, DruidTransientError

__all__ = ["OUTAGE_LOG_EVERY", "Outage", "is_transient"]

log = logging.getLogger("druid_ingest.waits")
#: seconds between two "still unreachable" lines while an outage lasts
OUTAGE_LOG_EVERY = 60.0


def is_transient(exc: BaseException) -> bool:
    """A failure a wait may ride out: a transient error, or a call's retries exhausted on one."""
    return isinstance(exc, (DruidTransientError, DruidRetriesExhaustedError))


@dataclass
class Outage:
    """The outage a wait is in (if any): when it started, when it last said so, its last error."""

    what: str
    started: float | None = None
    logged_at: float = 0.0
    last: str = ""

    def failed(self, exc: DruidError, now: float) -> None:
        """Record one failed look; log at the first and then about every ``OUTAGE_LOG_EVERY`` seconds."""
        self.last = str(exc)
        if self.started is None:
            self.started = self.logged_at = now
            log.warning("Druid unreachable while waiting for %s; still waiting until the deadline: %s",
                        self.what, self.last)
        elif now - self.logged_at >= OUTAGE_LOG_EVERY:
            self.logged_at = now
            log.warning("Druid still unreachable while waiting for %s (for %.0fs); last error: %s",
                        self.what, now - self.started, self.last)

    def recovered(self, now: float) -> None:
        """A look succeeded: log the end of an outage that was under way."""
        if self.started is not None:
            log.warning("Druid reachable again while waiting for %s, after %.0fs", self.what, now - self.started)
            self.started = None

    def describe(self, now: float) -> str:
        """The clause a timeout message adds while an outage is under way ('' when none)."""
        if self.started is None:
            return ""
        return f"; Druid was unreachable for the last {now - self.started:.0f}s (last error: {self.last})"
