"""Things due later, grouped in slots on a 0.25 s grid, on one loop timer for all of them.

A triggerer's thousands of Druid waits each sleep 1 to 60 s between looks. ``loop.call_later`` per sleep costs a
``TimerHandle``, a context copy and an argument tuple per sleeping wait, each reaching the collector's oldest
generation; here a wait costs its place in its slot. The async client keeps one slot timer per loop for its
waits' sleeps (a shared future per slot), the poller one for the status looks due later (the looks per slot).
"""

from __future__ import annotations

import asyncio
import heapq
import math
import time
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

__all__ = ["GRID", "SlotTimer"]

#: slots are due on this grid (seconds, rounded up): what is due in one slot is handled together, and a look
#: after it waits for the poller's next 1 s tick anyway
GRID = 0.25
#: how early the loop runs a timer (``BaseEventLoop._clock_resolution``): the slots due within it are due
_RESOLUTION = time.get_clock_info("monotonic").resolution

S = TypeVar("S")


class SlotTimer(Generic[S]):
    """Slots by due time (``GRID``), a heap of their times and one loop timer set for the earliest.

    ``new`` makes an empty slot, ``due`` is called with each slot once it is due (in due order), and ``spent``
    tells a slot that cannot take more (a shared future already resolved): :meth:`slot` then replaces it.
    """

    __slots__ = ("_due", "_heap", "_new", "_slots", "_spent", "_timer")

    def __init__(self, new: Callable[[asyncio.AbstractEventLoop], S], due: Callable[[S], None],
                 spent: Callable[[S], bool] | None = None) -> None:
        self._new, self._due, self._spent = new, due, spent
        self._heap: list[float] = []
        self._slots: dict[float, S] = {}
        self._timer: asyncio.TimerHandle | None = None

    def slot(self, loop: asyncio.AbstractEventLoop, after: float) -> S:
        """The slot due ``after`` seconds from now (rounded up to ``GRID``), the timer set for it."""
        when = math.ceil((loop.time() + after) / GRID) * GRID
        held = self._slots.get(when)
        if held is not None and (self._spent is None or not self._spent(held)):
            return held
        if held is None:
            heapq.heappush(self._heap, when)
            timer = self._timer
            if timer is None or when < timer.when():
                if timer is not None:
                    timer.cancel()
                self._timer = loop.call_at(when, self._fire, loop)
        held = self._slots[when] = self._new(loop)
        return held

    def held(self) -> Iterator[S]:
        """The slots not due yet."""
        return iter(self._slots.values())

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        heap, due = self._heap, loop.time() + _RESOLUTION
        while heap and heap[0] <= due:
            self._due(self._slots.pop(heapq.heappop(heap)))
        if heap:
            self._timer = loop.call_at(heap[0], self._fire, loop)
