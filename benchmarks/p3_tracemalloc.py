"""P3's memory per wait outside Airflow: N waiting triggers on one asyncio loop, tracemalloc and the collector.

The quick loop before the real runner (``p3_triggerer.py``): the same ``DruidTaskTrigger`` kwargs, built from
their classpath and run the way Airflow's ``TriggerRunner.run_trigger`` does (``async for event in
trigger.run()`` in one asyncio task each), against the fake Druid in its own process. The shared client, the
imports and the connection are warmed by a holder (as the probe does in ``p3_triggerer.py``) before the measure
starts. ``--baseline`` runs Airflow's ``DateTimeTrigger`` the same way; ours minus the baseline is what a Druid
wait costs over the cheapest wait Airflow ships.

Figures, each from the state before the triggers were built: the live bytes in the steady state (every wait had
its first look and ``--settle`` seconds of bulk looks, after a full collection), the herd's peak (tracemalloc's
high-water mark), the RSS (this process's, a high-water mark in practice), the objects the collector tracks (a
full collection's work), and the steady state's largest allocation sites.

    .venv/bin/python benchmarks/p3_tracemalloc.py [--waits 2000] [--baseline] [--settle 20] [--top 25]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import machine, print_machine, write_results  # noqa: E402
from p3_fake import FakeProcess  # noqa: E402

CONN_ID = "druid_bench"


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def _run_trigger(trigger: Any, fired: list[Any]) -> None:
    """What Airflow's ``run_trigger`` does with a trigger, less its logging and portal (the same for both)."""
    async for event in trigger.run():
        fired.append(event)
        return


def _kind(o: Any) -> str:
    """An object's type, with a list's first item's and a dict's first keys (which code made it)."""
    if type(o) is list:
        return f"list[{type(o[0]).__qualname__ if o else ''}]"
    if type(o) is dict:
        return "dict{" + ",".join(str(k)[:20] for k in list(o)[:2]) + "}"
    return type(o).__qualname__


class _Pauses:
    """The collector's pauses per generation (``gc.callbacks``), ms."""

    def __init__(self, types: bool = False) -> None:
        self.started = 0.0
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.young = 0
        self.promoted = 0  # objects a generation-1 collection moved to the oldest: what brings a full one on
        self.types: Counter[str] | None = Counter() if types else None  # the promoted objects' types
        self._young_ids: list[tuple[int, str]] = []

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if info["generation"] == 1:
                young = gc.get_objects(0) + gc.get_objects(1)
                self.young = len(young)
                if self.types is not None:  # ids and type names only: holding the objects would promote them all
                    self._young_ids = [(id(o), _kind(o)) for o in young]
                del young
            self.started = time.perf_counter()
        else:
            self.pauses[info["generation"]].append((time.perf_counter() - self.started) * 1000)
            if info["generation"] == 1:
                self.promoted += self.young - info["collected"]
                if self.types is not None:
                    old = {id(o) for o in gc.get_objects(2)}
                    self.types.update(name for i, name in self._young_ids if i in old)
                    self._young_ids = []

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {f"gen{g}": {"count": len(p), "total_ms": round(sum(p), 1),
                                           "max_ms": round(max(p, default=0), 1)} for g, p in self.pauses.items()}
        out["promoted_to_gen2"] = self.promoted
        if self.types is not None:
            out["promoted_types"] = dict(self.types.most_common(25))
        return out


async def _measure(ids: list[str], baseline: bool, settle: float, top: int, gc_window: float = 0.0,
                   types: bool = False) -> dict[str, Any]:
    from p3_triggerer import wait_trigger

    from airflow_provider_druid_ingest.triggers.base import cluster_client

    end = time.time() + 7200
    kwargs = [wait_trigger(i, end, baseline) for i in ids]
    # the warm-up: the Druid code, the connection and the loop's shared client, held for the whole run (the probe)
    holder = cluster_client(CONN_ID, None)
    client = await holder.__aenter__()
    if baseline:  # DateTimeTrigger's own imports
        from airflow.providers.standard.triggers.temporal import DateTimeTrigger  # noqa: F401
    import importlib

    def build(path: str, kw: dict[str, Any]) -> Any:
        module, name = path.rsplit(".", 1)
        return getattr(importlib.import_module(module), name)(**kw)

    build(*kwargs[0])  # the class's module, imported
    fired: list[Any] = []
    gc.collect()
    if gc_window:
        return await _gc_window(kwargs, build, client, baseline, settle, gc_window, types)
    tracemalloc.start(1)
    before = tracemalloc.take_snapshot()
    base_bytes = tracemalloc.get_traced_memory()[0]
    base_rss = _rss_kb()
    base_objects = len(gc.get_objects())
    started = time.monotonic()
    tasks = [asyncio.ensure_future(_run_trigger(build(path, kw), fired)) for path, kw in kwargs]
    del kwargs
    poller = client.poller
    while True:
        await asyncio.sleep(0.5)
        looks = sum(not t.done() for t in tasks) if baseline else poller.stats.get("first looks", 0)
        if looks >= len(ids):
            break
        if time.monotonic() - started > 600:
            raise RuntimeError("the herd took over 600 s")
    herd_s = time.monotonic() - started
    herd_rss = _rss_kb()
    await asyncio.sleep(settle)
    peak = tracemalloc.get_traced_memory()[1]
    gc.collect()
    now_bytes = tracemalloc.get_traced_memory()[0]
    after = tracemalloc.take_snapshot()
    objects = len(gc.get_objects())
    rss = _rss_kb()
    t0 = time.perf_counter()
    gc.collect()
    full_ms = (time.perf_counter() - t0) * 1000
    tracemalloc.stop()
    n = len(ids)
    diff = after.compare_to(before, "lineno")
    sites = [{"site": f"{Path(d.traceback[0].filename).name}:{d.traceback[0].lineno}",
              "bytes_per_wait": round(d.size_diff / n, 1), "count_per_wait": round(d.count_diff / n, 2)}
             for d in diff[:top]]
    out = {"waits": n, "trigger": "DateTimeTrigger (baseline)" if baseline else "DruidTaskTrigger",
           "herd_s": round(herd_s, 1),
           "steady_bytes_per_wait": round((now_bytes - base_bytes) / n, 1),
           "herd_peak_bytes_per_wait": round((peak - base_bytes) / n, 1),
           "rss_kb_per_wait_after_herd": round((herd_rss - base_rss) / n, 2),
           "rss_kb_per_wait_steady": round((rss - base_rss) / n, 2),
           "gc_objects_per_wait": round((objects - base_objects) / n, 2),
           "full_gc_ms": round(full_ms, 1),
           "fired": len(fired), "poller": dict(poller.stats) if poller is not None else {}, "sites": sites}
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await holder.__aexit__(None, None, None)
    return out


async def _gc_window(kwargs: list[tuple[str, dict[str, Any]]], build: Any, client: Any, baseline: bool,
                     settle: float, window: float, types: bool = False) -> dict[str, Any]:
    """No tracemalloc: the herd, ``settle`` seconds, then the collector's pauses over ``window`` seconds."""
    fired: list[Any] = []
    n = len(kwargs)
    base_objects = len(gc.get_objects())
    base_rss = _rss_kb()
    started = time.monotonic()
    tasks = [asyncio.ensure_future(_run_trigger(build(path, kw), fired)) for path, kw in kwargs]
    del kwargs
    poller = client.poller
    while (sum(not t.done() for t in tasks) if baseline else poller.stats.get("first looks", 0)) < n:
        await asyncio.sleep(0.5)
    herd_s = time.monotonic() - started
    await asyncio.sleep(settle)
    pauses = _Pauses(types)
    gc.callbacks.append(pauses)
    before = dict(poller.stats) if poller is not None else {}
    await asyncio.sleep(window)
    gc.callbacks.remove(pauses)
    after = dict(poller.stats) if poller is not None else {}
    out = {"waits": n, "trigger": "DateTimeTrigger (baseline)" if baseline else "DruidTaskTrigger",
           "herd_s": round(herd_s, 1), "window_s": window, "gc_in_window": pauses.summary(),
           "gc_objects_per_wait": round((len(gc.get_objects()) - base_objects) / n, 2),
           "gc_objects_gen2": len(gc.get_objects(2)), "rss_kb_per_wait": round((_rss_kb() - base_rss) / n, 2),
           "reads_in_window": after.get("answered", 0) - before.get("answered", 0), "fired": len(fired),
           "promoted_per_read": round(pauses.promoted / max(1, after.get("answered", 0) - before.get("answered", 0)),
                                      2)}
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--waits", type=int, default=2000)
    parser.add_argument("--baseline", action="store_true", help="Airflow's DateTimeTrigger instead")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds of steady state after the herd")
    parser.add_argument("--top", type=int, default=25, help="allocation sites shown")
    parser.add_argument("--gc-window", type=float, default=0.0,
                        help="no tracemalloc: the collector's pauses over this many seconds after --settle")
    parser.add_argument("--promoted-types", action="store_true",
                        help="with --gc-window: the types of the objects reaching the oldest generation (slower)")
    args = parser.parse_args()
    fake = FakeProcess()
    try:
        host, port = fake.url.removeprefix("http://").split(":")
        os.environ[f"AIRFLOW_CONN_{CONN_ID.upper()}"] = json.dumps(
            {"conn_type": "druid_cluster", "host": host, "port": int(port), "schema": "http",
             "extra": {"read_timeout": 300}})
        ids = fake.ask(f"seed 0 {args.waits}")
        info = machine("aiohttp", "apache-airflow-core")
        print_machine(info)
        out = asyncio.run(_measure(ids, args.baseline, args.settle, args.top, args.gc_window, args.promoted_types))
    finally:
        fake.stop()
    if args.gc_window:
        print(json.dumps(out, indent=1))
        write_results("p3_gc" + ("_baseline" if args.baseline else ""), {"machine": info, "row": out})
        return
    print(json.dumps({k: v for k, v in out.items() if k != "sites"}, indent=1))
    print(f"{'site':<40} {'B/wait':>9} {'n/wait':>7}")
    for s in out["sites"]:
        print(f"{s['site']:<40} {s['bytes_per_wait']:>9} {s['count_per_wait']:>7}")
    write_results("p3_tracemalloc" + ("_baseline" if args.baseline else ""), {"machine": info, "row": out})


if __name__ == "__main__":
    main()
