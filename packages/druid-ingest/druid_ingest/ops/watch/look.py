"""One look of the served-changes watch, as a generator both clients drive.

One read when nothing was loaded or unloaded since the cursor: the Coordinator's served inventory of the window,
ids only (``served_segments``), whose fingerprint is the cursor's. Two when it differs: then the metadata store's
used segments of the window (``used_segments``, full), which say whether a new version is whole, overshadowed
or a compaction (``state.py``). Not the shared served read of the waits (``ServedQuery``): a driver may answer
that with a wider span, and the fingerprint must be of exactly the window.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidUsageError
from druid_ingest.ops.gate.timeline import format_instant
from druid_ingest.ops.watch.changes import ChangeKind, ServedChange, diff
from druid_ingest.ops.watch.cursor import WatchCursor, start_cursor
from druid_ingest.ops.watch.state import served_digest, served_state
from druid_ingest.planning import parse_interval
from druid_ingest.planning.spec.intervals import ETERNITY_END, ETERNITY_START
from druid_ingest.wire import Operation, call

__all__ = [
    "ALL_TIME", "REPORTED_KINDS", "WATCH_EVERY", "ChangeBatch", "first_batch", "next_look", "served_changes",
    "watch_window",
]

#: the default window: every segment of the datasource (Druid's ``Intervals.ETERNITY``)
ALL_TIME = f"{ETERNITY_START}/{ETERNITY_END}"

#: seconds between two looks unless a watcher says otherwise (the CLI, the Dagster sensor, the Airflow trigger):
#: a look that finds nothing costs one small read, and an event a minute bounds a storm
WATCH_EVERY = 60.0

#: the change kinds a watcher reacts to unless told otherwise: new data is queryable (a drop is opt-in, ``dropped``)
REPORTED_KINDS: tuple[ChangeKind, ...] = ("served", "appended")


@dataclass(frozen=True)
class ChangeBatch:
    """One look: what changed since the cursor it started from (empty: nothing), and the cursor to keep."""

    changes: tuple[ServedChange, ...]
    cursor: WatchCursor
    #: the served fingerprint the look started from (the cursor's before the look)
    since: str = ""

    @property
    def key(self) -> str:
        """This look's news by name: the fingerprints before and after it. A batch delivered again (a watcher
        restarted before it kept the cursor) has the same key, so a consumer that must not act twice keys on it."""
        return f"{self.since}>{self.cursor.served}"

    def only(self, kinds: Collection[ChangeKind]) -> ChangeBatch:
        """The batch with only the changes of ``kinds`` (what a watcher was asked to react to)."""
        return replace(self, changes=tuple(c for c in self.changes if c.kind in kinds))

    def to_dict(self) -> dict[str, Any]:
        """The batch a watcher emits (the cursor is kept apart: it is state, not news)."""
        return {"datasource": self.cursor.datasource, "window": self.cursor.window, "key": self.key,
                "changes": [c.to_dict() for c in self.changes]}


def next_look(batch: ChangeBatch, every: float) -> float:
    """Seconds until the look after ``batch``: ``every``, or a fifth of it (1 s at least) while the served ids move
    without a whole change to report (a version loading, old segments unloading). A new version's segments load
    over seconds, so the look that sees the first of them comes before the version is whole; waiting a full
    ``every`` after it would report the change a cadence late. The follow-ups stop once the ids stand still."""
    settling = batch.since != batch.cursor.served and not batch.changes
    return max(1.0, every / 5) if settling else every


def first_batch(batch: ChangeBatch, from_now: bool) -> ChangeBatch:
    """What a watch's first look (no cursor kept yet) reports: everything already served, as changes from nothing
    served; or, ``from_now``, nothing, and what is served becomes the baseline the next look diffs against. The one
    rule for every watcher (the CLI, the Airflow trigger, the Dagster sensor), so none can report the past where
    another would not. The baseline's ``since`` is its own fingerprint: nothing is settling, the next look waits a
    full cadence (``next_look``), and its ``key`` names no news."""
    return replace(batch, changes=(), since=batch.cursor.served) if from_now else batch


def watch_window(window: str | None) -> str:
    """``window`` in Druid's spelling (all time when None), so a cursor matches however the window was written."""
    try:
        start, end = parse_interval(window or ALL_TIME)
    except ValueError as exc:
        raise DruidUsageError(f"the watch window {window!r} is not an ISO interval: {exc}") from None
    return f"{format_instant(start)}/{format_instant(end)}"


def served_changes(datasource: str, window: str | None = None, cursor: WatchCursor | None = None,
                   from_now: bool = False) -> Operation[ChangeBatch]:
    """What changed in what ``datasource`` serves in ``window`` since ``cursor``; without one, the first look
    (``first_batch``: everything served, or nothing when ``from_now``; ``from_now`` is ignored with a cursor).

    A cursor of another datasource or window is refused (DruidUsageError): its state says nothing of this one.
    """
    window = watch_window(window)
    since = cursor or start_cursor(datasource, window)
    for field, theirs, ours in (("datasource", since.datasource, datasource), ("window", since.window, window)):
        if theirs != ours:
            raise DruidUsageError(f"the watch cursor's {field} is {theirs!r}, not {ours!r}: it belongs to another "
                                  "watch; give this one its own cursor")
    served = yield from call(ep.served_segments(datasource, window), ep.parse_served_segments)
    fingerprint = served_digest(served)
    if fingerprint == since.served:
        return ChangeBatch((), since, since.served)
    used = yield from call(ep.used_segments(datasource, [window]), ep.parse_used_segments)
    chunks = served_state(used, served, window, since.counted)
    batch = ChangeBatch(tuple(diff(list(since.chunks), chunks)),
                        WatchCursor(datasource, window, fingerprint, tuple(chunks)), since.served)
    return first_batch(batch, from_now) if cursor is None else batch
