"""A probe that runs as one more trigger inside the triggerer's event loop (P3 and P6), so what it measures is
that loop, not a copy of it.

It loads what a Druid trigger loads (off the loop, as ``DruidWaitTrigger._client`` does), holds the loop's shared
Druid client for the connection, then every second appends one JSON line to ``out``: the wall time, the loop's lag
samples of that second (a 10 ms sleep, how late it woke), the process RSS, the shared poller's counters, and the
garbage collector's pauses of that second per generation (``gc.callbacks``: is a stall the collector or the
machine?). With ``freeze_at`` (``p3_triggerer.py --gc-freeze``, an experiment for the proposal in the README) it
calls ``gc.freeze()`` once the poller has given that many first looks, i.e. once the triggers are built. When the
file ``out + ".census"`` appears (``p3_triggerer.py --census``, after the window: it is a pause of its own) it
writes, in its place, the objects the collector tracks, by type (what a full collection walks). It never fires an
event; the benchmark stops the triggerer when it has its numbers.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

__all__ = ["LagProbeTrigger"]


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _load() -> None:
    import druid_ingest.clients
    import druid_ingest.ops  # noqa: F401

    import airflow_provider_druid_ingest.triggers.task  # noqa: F401


def census(path: str) -> None:
    """The collector's tracked objects by type (a list's first item's type too: which code made it), into
    ``path``: the total, per generation, the 60 commonest types, and the references a full collection follows
    from them (``gc.get_referents``: its traversal visits each one twice), in all and for the 30 types holding
    the most."""
    kinds: Counter[str] = Counter()
    refs: Counter[str] = Counter()
    for o in gc.get_objects():
        kind = type(o).__qualname__
        if kind == "list" and o:
            kind = f"list[{type(o[0]).__qualname__}]"
        kinds[kind] += 1
        refs[kind] += len(gc.get_referents(o))
    out = {"total": sum(kinds.values()), "by_generation": [len(gc.get_objects(g)) for g in range(3)],
           "types": dict(kinds.most_common(60)), "references": sum(refs.values()),
           "references_by_type": dict(refs.most_common(30))}
    with open(path + ".tmp", "w") as f:
        json.dump(out, f)
    os.replace(path + ".tmp", path)


class _GcPauses:
    """Milliseconds the collector ran, per generation, and the objects each full collection freed (garbage in
    cycles: freeing it is part of the pause), since the last ``take``."""

    def __init__(self) -> None:
        self.started = 0.0
        self.pauses: dict[str, list[float]] = {}
        self.freed: list[int] = []

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            took = (time.perf_counter() - self.started) * 1000
            self.pauses.setdefault(str(info.get("generation")), []).append(round(took, 2))
            if info.get("generation") == 2:
                self.freed.append(int(info.get("collected", 0)))

    def take(self) -> tuple[dict[str, list[float]], list[int]]:
        out, freed, self.pauses, self.freed = self.pauses, self.freed, {}, []
        return out, freed


class LagProbeTrigger(BaseTrigger):
    def __init__(self, out: str, conn_id: str, freeze_at: int = 0) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.out = out
        self.conn_id = conn_id
        self.freeze_at = freeze_at

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return f"{type(self).__module__}.{type(self).__qualname__}", {"out": self.out, "conn_id": self.conn_id,
                                                                       "freeze_at": self.freeze_at}

    async def run(self) -> AsyncIterator[TriggerEvent]:
        from airflow_provider_druid_ingest.hooks.druid import DruidHook

        await asyncio.to_thread(_load)
        from druid_ingest.clients import shared_client

        hook = DruidHook(druid_conn_id=self.conn_id)
        config = await hook.aget_config()
        pauses = _GcPauses()
        gc.callbacks.append(pauses)
        async with shared_client(config, hook.retry) as client:
            with open(self.out, "a") as out:
                while True:
                    lags: list[float] = []
                    began = time.perf_counter()
                    while time.perf_counter() - began < 1.0:
                        start = time.perf_counter()
                        await asyncio.sleep(0.01)
                        lags.append(round((time.perf_counter() - start - 0.01) * 1000, 2))
                    stats = dict(client.poller.stats) if client.poller is not None else {}
                    if self.freeze_at and stats.get("first looks", 0) >= self.freeze_at:
                        gc.freeze()  # the built triggers leave the collector's generations for good
                        stats["frozen"] = gc.get_freeze_count()
                        self.freeze_at = 0
                    line = {"t": time.time(), "lag_ms": lags, "rss_mb": round(_rss_mb(), 2), "poller": stats,
                            "tasks": len(asyncio.all_tasks())}
                    line["gc_ms"], line["gc_full_freed"] = pauses.take()
                    out.write(json.dumps(line) + "\n")
                    out.flush()
                    if os.path.exists(self.out + ".census"):
                        os.unlink(self.out + ".census")
                        census(self.out + ".census.json")
        yield TriggerEvent({"never": True})  # type: ignore[unreachable]  # the loop above runs until cancelled
