"""``SlotTimer``: what is due in one slot is handed over together, slots in due order, on one loop timer; a spent
slot is replaced in place (one heap entry per slot time, so a replaced slot is not handed over twice)."""

from __future__ import annotations

import asyncio

from druid_ingest.clients._slot_timer import GRID, SlotTimer


def test_slots_are_handed_over_in_due_order_each_once_with_what_they_hold() -> None:
    async def run() -> tuple[list[tuple[float, list[str]]], list[list[str]]]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        handed: list[tuple[float, list[str]]] = []
        timer: SlotTimer[list[str]] = SlotTimer(lambda _loop: [], lambda held: handed.append((loop.time(), held)))
        timer.slot(loop, 3 * GRID).append("late")
        timer.slot(loop, GRID).append("early-1")
        timer.slot(loop, GRID).append("early-2")  # the same slot: one list
        timer.slot(loop, 2 * GRID).append("middle")
        waiting = [list(held) for held in timer.held()]
        await asyncio.sleep(5 * GRID)
        return [(when - started, held) for when, held in handed], waiting

    handed, waiting = asyncio.run(run())
    assert sorted(waiting) == [["early-1", "early-2"], ["late"], ["middle"]]
    assert [held for _, held in handed] == [["early-1", "early-2"], ["middle"], ["late"]]
    # the k-th slot is due no sooner than k grid steps after it was asked for (the loop may run a timer a hair
    # early, within its clock's resolution)
    assert all(when >= (k + 1) * GRID - 0.01 for k, (when, _) in enumerate(handed))


def test_a_spent_slot_is_replaced_and_the_replacement_handed_over_once() -> None:
    async def run() -> list[dict[str, bool]]:
        loop = asyncio.get_running_loop()
        handed: list[dict[str, bool]] = []
        timer: SlotTimer[dict[str, bool]] = SlotTimer(
            lambda _loop: {}, handed.append, spent=lambda held: held.get("spent", False))
        first = timer.slot(loop, 2 * GRID)
        first["spent"] = True  # e.g. a shared future woken early
        second = timer.slot(loop, 2 * GRID)
        second["fresh"] = True
        again = timer.slot(loop, 2 * GRID)
        assert again is second and again is not first
        await asyncio.sleep(4 * GRID)
        assert not list(timer.held())
        return handed

    assert asyncio.run(run()) == [{"fresh": True}]
