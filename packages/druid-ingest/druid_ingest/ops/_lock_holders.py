"""Who a waiting task waits for: the other task groups holding time-chunk locks on its datasource.

Druid hands a task to its runner only once ``isReady`` got its locks (druid-contract §locks); until then its runner
state is ``WAITING``. A kill, a compaction or a replace of an interval another task has locked waits there, with
nothing in its status to say behind what. ``POST /activeLocks`` lists the holders (STATE WRITE): a wait that has
sat there for a while asks it and names them in its progress line.
"""

from __future__ import annotations

from druid_ingest.api import TaskLock, TaskStatus
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidAuthError, DruidError, DruidNotFoundError, DruidValidationError
from druid_ingest.wire import Operation, call

__all__ = ["HOLDERS_AFTER", "HOLDERS_EVERY", "holders_line", "lock_holders"]

#: seconds a task must have been WAITING before its wait asks who holds the locks (a task with none in its way
#: leaves WAITING within a moment, so an ordinary wait never pays the request)
HOLDERS_AFTER = 10.0
#: seconds between two such questions while it keeps waiting
HOLDERS_EVERY = 60.0


def holders_line(status: TaskStatus, locks: list[TaskLock]) -> str:
    """"waiting for the time-chunk lock held by task X (interval, priority P)", or "" when no other group holds
    one (the task is about to get its locks, or waits for something else)."""
    own = status.group_id or status.task_id
    others: dict[str, list[TaskLock]] = {}
    for lock in locks:
        if lock.group_id != own and not lock.revoked:
            others.setdefault(lock.group_id, []).append(lock)
    if not others:
        return ""
    parts = []
    for group, held in sorted(others.items()):
        intervals = ", ".join(sorted({lock.interval for lock in held}))
        priorities = sorted({lock.priority for lock in held if lock.priority is not None})
        priority = f", priority {', '.join(map(str, priorities))}" if priorities else ""
        parts.append(f"task {group} ({intervals}{priority})")
    plural = "s" if len(parts) > 1 else ""
    return f"waiting for the time-chunk lock{plural} held by {'; '.join(parts)}"


def lock_holders(status: TaskStatus) -> Operation[str | None]:
    """:func:`holders_line` from one ``activeLocks`` read of the task's datasource; None when Druid refuses that
    read (no STATE WRITE, an older Druid or a proxy: asking again would not help), "" on any other error."""
    if not status.datasource:
        return ""
    try:
        locks = yield from call(ep.active_locks(status.datasource), ep.parse_active_locks)
    except (DruidAuthError, DruidNotFoundError, DruidValidationError):
        return None
    except DruidError:
        return ""
    return holders_line(status, locks)
