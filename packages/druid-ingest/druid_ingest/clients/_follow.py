"""A polling wait stepped by the poller: between two status looks the wait's task does not wake.

A wait past its first look mostly does one thing: look (``StatusQuery``), log its progress, sleep, look again.
Each look used to wake the wait's task to send the answer in and to await the next look, and each await costs a
future, an iterator and a wake-up that live through the sleep of seconds and reach the collector's oldest
generation (thousands of waits look every second in a triggerer; what reaches the oldest generation sets how often
it is walked in full). Instead the task hands its operation to the poller at its first status look and awaits one
future until the operation wants anything but a look: the poller sends each answer in (in the task's own context,
so log lines keep their trigger's log context), hands its progress to its sink and files its next look, with no
object per look left behind.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Sequence
from typing import Any

from druid_ingest.ops import StatusQuery
from druid_ingest.wire import Operation, Progress, ProgressSink

__all__ = ["Follower", "Held", "follower", "futures_of", "hold", "is_gone", "settle", "step"]

#: a wait the poller steps: its operation, its progress sink, its task's context, the future its task awaits
#: (resolved with ``(True, value)`` when the operation returned, ``(False, action)`` for its next action that is
#: not a status look)
Follower = tuple[Operation[Any], "ProgressSink | None", contextvars.Context, "asyncio.Future[tuple[bool, Any]]"]
#: what waits on one task id: a future (``SharedPoller.answer``) or a follower, a list when two waits ask the task
Held = Any


def follower(op: Operation[Any], on_progress: ProgressSink | None) -> Follower:
    """The calling task's wait, to hand to the poller (the task awaits its last item)."""
    return op, on_progress, contextvars.copy_context(), asyncio.get_running_loop().create_future()


def step(wait: Follower, answer: Any, error: BaseException | None) -> StatusQuery | None:
    """Send a look's answer (or ``error``) into the wait and go on while it only reports progress: its next look
    to file, or None when its task has it back (another action, its value, its exception) or was cancelled."""
    op, on_progress, context, future = wait
    if future.done():  # its task was cancelled
        return None
    try:
        action = context.run(op.throw, error) if error is not None else context.run(op.send, answer)
        while isinstance(action, Progress):
            if on_progress is not None:
                context.run(on_progress, action.item)
            action = context.run(op.send, None)
    except StopIteration as stop:
        future.set_result((True, stop.value))
        return None
    except Exception as exc:  # the operation's own (a DruidError it does not survive, a sink's): its task raises it
        future.set_exception(exc)
        return None
    if isinstance(action, StatusQuery):
        return action
    future.set_result((False, action))
    return None


def hold(waiting: dict[str, Held], task_id: str, item: Any) -> None:
    """File ``item`` under ``task_id``: the item itself, a list only when two waits ask one task (a list each would
    be one more object per look alive across the tick, when young collections run and promote what is in flight)."""
    held = waiting.get(task_id)
    if held is None:
        waiting[task_id] = item
    elif isinstance(held, list):
        held.append(item)
    else:
        waiting[task_id] = [held, item]


def futures_of(held: Held) -> Sequence[Any]:
    """A task id's futures and followers, made a sequence only when read (a tuple gone at once)."""
    return held if isinstance(held, list) else (held,)


def is_gone(item: Any) -> bool:
    """The wait behind ``item`` no longer wants the answer (its task was cancelled)."""
    return bool((item[3] if isinstance(item, tuple) else item).done())


def settle(futures: asyncio.Future[Any] | Sequence[asyncio.Future[Any]], *, value: Any = None,
           error: BaseException | None = None) -> None:
    for future in (futures,) if isinstance(futures, asyncio.Future) else futures:
        if future.done():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
