"""Seconds from a task's SUCCESS to its data being queryable, per (cluster, datasource), as this process saw them:
what the handoff wait's looks are planned from (``gate/looks.py``)."""

from __future__ import annotations

import threading

__all__ = ["HANDOFF_KEEP", "HANDOFF_LATENCIES", "HandoffLatencies"]

#: handoff delays kept per (cluster, datasource): enough for a 5th and a 95th percentile that are not simply the
#: extremes (nearest rank: the 19th of 20), few enough to follow a cluster whose Coordinator was retuned
HANDOFF_KEEP = 20


class HandoffLatencies:
    """Seconds from a task's SUCCESS to its data being queryable, per (cluster, datasource), as this process saw
    them: the next handoff wait of that datasource looks often through the window these delays span
    (``gate/looks.py``) instead of from the end on the fixed backoff (a look right after SUCCESS always finds the
    segments not loaded yet). The last ``keep`` are kept."""

    def __init__(self, keep: int = HANDOFF_KEEP) -> None:
        if keep < 1:  # ``del seen[:-0]`` deletes nothing: 0 would keep every delay, not none
            raise ValueError(f"keep={keep!r}: expected at least 1 delay to keep")
        self.keep = keep
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], list[float]] = {}
        self._recorded: dict[tuple[str, str], int] = {}
        #: per key, whether the last delay was found at its wait's first look (an upper bound, maybe a quicker one)
        self._at_first: dict[tuple[str, str], bool] = {}

    def recent(self, key: tuple[str, str]) -> list[float]:
        """The kept delays of ``key``, oldest first (a copy)."""
        with self._lock:
            return list(self._seen.get(key, ()))

    def record(self, key: tuple[str, str], seconds: float, at_first_look: bool = False) -> None:
        """Keep a delay; ``at_first_look``: the wait's first look found the data loaded (so it may have been
        quicker: :meth:`found_at_first_look`)."""
        with self._lock:
            seen = self._seen.setdefault(key, [])
            seen.append(max(0.0, seconds))
            del seen[: -self.keep]
            self._recorded[key] = self._recorded.get(key, 0) + 1
            self._at_first[key] = at_first_look

    def found_at_first_look(self, key: tuple[str, str]) -> bool:
        """Whether the last delay of ``key`` was found at its wait's first look (``gate/looks.py``: the next wait
        looks a step earlier when the delays vary)."""
        with self._lock:
            return self._at_first.get(key, False)

    def recorded(self, key: tuple[str, str]) -> int:
        """How many delays of ``key`` were ever recorded (kept or not): the handoff looks' turn (``gate/looks.py``:
        every ``EXPLORE_EVERY``-th wait looks a step before the quickest)."""
        with self._lock:
            return self._recorded.get(key, 0)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()
            self._recorded.clear()
            self._at_first.clear()


#: the process-wide handoff delays every client shares
HANDOFF_LATENCIES = HandoffLatencies()
