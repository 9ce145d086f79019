"""P3: one event loop (one triggerer) running 10, 100, 1000 and 5000 concurrent task waits against the fake Druid.

Per size, two ways of waiting, each for the same measuring window on long-running tasks:

* ``before``: every wait has its own client (aiohttp session) and asks ``GET /status`` on its own schedule, as
  each trigger did before the shared poller;
* ``after``: every wait uses the loop's shared client (``core.async_client.shared_client``): one session, and a
  poller that answers all status reads of a tick with one ``POST /druid/indexer/v1/taskStatus``.

The waits' tasks spread over 100 datasources (one day each: no shared locks), and the waits plan with history
(``predict=True``), so the start-up herd pays what a triggerer's does: "herd requests" counts every Overlord
request from the start until every wait has made its first look (all waits start at once, as after a restart).
Measuring starts once every wait has made its first look (a full ``GET /status``: the bulk answer lacks
createdTime and the datasource), so the window sees the steady state. Measured: RSS growth of the measuring
process (a fresh one per size and variant) while the waits run, over its RSS before they started; the event
loop's lag p99 (a 10 ms ticker: how late it wakes); Overlord requests per minute as the fake counts them, the
status reads they carried, and status calls per 1 s tick. The fake runs in its own process so its memory and
CPU stay out of the numbers (it is single-threaded Python: at the largest
sizes ``before`` asks faster than it answers, so its request rate is what the fake could serve).

    .venv/bin/python benchmarks/p3_many_waits.py [--sizes 10 100 1000 5000] [--window 20] [--warmup 10]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import resource
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import p3_fake  # noqa: E402
from benchlib import machine, print_machine, print_table, write_results  # noqa: E402

SCHEDULE = (5.0, 60.0, 1.5)  # the waits' fixed schedule: 5 s growing x1.5 to 60 s
MAX_WARMUP = 180.0  # seconds: at most this long for every wait's first look before measuring anyway


def serve(conn: Any) -> None:
    """The child process: the fake of ``p3_fake.py`` (tasks of an hour, seeded without HTTP)."""
    p3_fake.serve(conn)


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def measure(url: str, ids: list[str], shared: bool, window: float, warmup: float,
                  conn: Any) -> dict[str, Any]:
    from druid_ingest import ClusterConfig, PollSchedule
    from druid_ingest.clients import AsyncDruidClient, shared_client

    config = ClusterConfig(url=url, read_timeout=120)
    schedule = PollSchedule(*SCHEDULE)
    late: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            late.append(time.perf_counter() - start - 0.01)

    async def one_own(task_id: str) -> None:
        async with AsyncDruidClient(config) as client:
            await client.watch_task(task_id, window * 10, schedule, predict=True)

    async def one_shared(task_id: str) -> None:
        async with shared_client(config) as client:
            await client.watch_task(task_id, window * 10, schedule, predict=True)

    base = rss_mb()
    watch = asyncio.create_task(ticker())
    waits = [asyncio.create_task((one_shared if shared else one_own)(i)) for i in ids]
    # let every wait start and make its first look (a full GET /status each), then measure the steady state
    began = time.monotonic()
    while True:
        await asyncio.sleep(1.0)
        conn.send("count")
        counted = conn.recv()
        waited = time.monotonic() - began
        seen = conn_first_looks(counted, len(ids))
        if waited >= warmup and (seen or waited >= MAX_WARMUP):
            break
    herd = sum(n for kind, n in counted.items() if kind != "ids asked")
    started = time.monotonic()
    late.clear()
    peak = rss_mb()
    while time.monotonic() - started < window:
        await asyncio.sleep(1.0)
        peak = max(peak, rss_mb())
    conn.send("count")
    counts = conn.recv() - counted
    minutes = (time.monotonic() - started) / 60
    stop.set()
    for wait in waits:
        wait.cancel()
    await asyncio.gather(*waits, return_exceptions=True)
    await watch
    late.sort()
    p99 = late[int(0.99 * (len(late) - 1))]
    status_calls = counts["bulk status"] + counts["status"]
    total = sum(n for kind, n in counts.items() if kind != "ids asked")
    return {"herd_requests": herd, "herd_per_100_waits": round(100 * herd / len(ids), 2),
            "herd_by_kind": {kind: n for kind, n in counted.items() if kind != "ids asked"},
            "rss_growth_mb": round(peak - base, 1), "loop_lag_p99_ms": round(p99 * 1000, 1),
            "requests_per_min": round(total / minutes, 1),
            "status_calls_per_tick": round(status_calls / (minutes * 60), 2),
            "status_reads_per_min": round(counts["ids asked"] / minutes, 1),
            "by_kind": {kind: n for kind, n in counts.items() if kind != "ids asked"}}


def conn_first_looks(counted: Any, n: int) -> bool:
    """Every wait has made its first look: one GET each (own clients), or the listing answered them (poller)."""
    return bool(counted["status"] >= n or (counted["GET tasks"] >= 1 and counted["bulk status"] >= 1))


def _measure_child(url: str, ids: list[str], shared: bool, window: float, warmup: float, server: Any,
                   out: Any) -> None:
    out.send(asyncio.run(measure(url, ids, shared, window, warmup, server)))


def in_fresh_process(url: str, ids: list[str], shared: bool, window: float, warmup: float,
                     server: Any) -> dict[str, Any]:
    """Each variant and size in its own process, so none measures memory another one freed."""
    mine, theirs = mp.Pipe()
    child = mp.get_context("spawn").Process(target=_measure_child,
                                            args=(url, ids, shared, window, warmup, server, theirs))
    child.start()
    row: dict[str, Any] = mine.recv()
    child.join(60)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 5000])
    parser.add_argument("--window", type=float, default=20.0, help="seconds measured per size and variant")
    parser.add_argument("--variants", nargs="+", choices=["before", "after"], default=["before", "after"])
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="seconds at least before measuring (and until every wait made its first look)")
    args = parser.parse_args()
    info = machine("aiohttp")
    print_machine(info)
    parent, child = mp.Pipe()
    server = mp.get_context("spawn").Process(target=serve, args=(child,), daemon=True)
    server.start()
    url = parent.recv()
    rows, first = [], 0
    for size in args.sizes:
        for shared in [v == "after" for v in args.variants]:
            parent.send(f"seed {first} {size}")
            ids = parent.recv()
            first += size
            row = in_fresh_process(url, ids, shared, args.window, args.warmup, parent)
            rows.append({"waits": size, "variant": "after (shared poller)" if shared else "before (own client)", **row})
            print(rows[-1], flush=True)
    parent.send("stop")
    server.join(30)
    print_table([("waits", "waits"), ("variant", "variant"), ("herd_requests", "herd requests"),
                 ("herd_per_100_waits", "herd per 100 (goal <= 2)"), ("rss_growth_mb", "RSS growth MB"),
                 ("loop_lag_p99_ms", "loop lag p99 ms"), ("requests_per_min", "Overlord req/min"),
                 ("status_reads_per_min", "status reads/min"), ("status_calls_per_tick", "status calls/tick")],
                rows)
    at = {r["variant"].split()[0]: r for r in rows if r["waits"] == 1000}
    if at:
        after, before = at["after"], at["before"]
        print(f"1000 waits: RSS growth {after['rss_growth_mb']} MB (goal <= 50) vs {before['rss_growth_mb']} before; "
              f"loop lag p99 {after['loop_lag_p99_ms']} ms (goal <= 50) vs {before['loop_lag_p99_ms']}; "
              f"{after['status_calls_per_tick']} status request(s) per 1 s tick (goal <= 1) vs "
              f"{before['status_calls_per_tick']} before "
              f"({before['requests_per_min'] / max(1, after['requests_per_min']):.0f}x fewer Overlord requests)")
    write_results("p3_many_waits", {"machine": info, "window_s": args.window, "rows": rows})


if __name__ == "__main__":
    main()
