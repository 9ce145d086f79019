"""The fake Druid the P3 and P6 benchmarks wait on, in its own process (its CPU and memory stay out of the numbers).

Its tasks run for an hour, each on its own datasource and day (no two share a lock). They are seeded with
``FakeDruid.seed_tasks`` (no HTTP: 10,000 in seconds); the benchmarks measure the waits, not submits. The parent
talks to it over a pipe: ``seed FIRST N`` -> the ids, ``count`` -> the Overlord requests by kind since the last
``clear``, ``clear``, ``stop``; ``history DAYS`` (before ``seed``) gives each datasource DAYS completed one-hour
ingestions, one a day on the fake's clock set back DAYS days, so the waits have a duration history to predict from
(a daily datasource in production) instead of polling on the backoff.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing as mp
from collections import Counter
from typing import Any

DATASOURCES = 100  # the waits' tasks spread over this many datasources (a triggerer serving many DAGs)


def task_id(i: int) -> str:
    return f"p3_task_{i}"


def payload(i: int) -> dict[str, Any]:
    """Task ``i``: datasource ``p3_<i mod 100>``, one day of its own."""
    from druid_ingest.testing import index_parallel_spec

    first = dt.date(2000, 1, 1) + dt.timedelta(days=i // DATASOURCES)
    return index_parallel_spec(f"p3_{i % DATASOURCES}", intervals=[f"{first}/P1D"], task_id=task_id(i))


def kind(method: str, path: str) -> str:
    if path.endswith("/taskStatus"):
        return "bulk status"
    if path.endswith("/status"):
        return "status"
    if path.endswith("/reports"):
        return "report"
    return f"{method} {path.split('/')[-1]}"


def count(seen: list[Any]) -> Counter[str]:
    """Requests by kind, plus ``ids asked``: the status reads they carried (a bulk call carries many)."""
    counts = Counter(kind(r.method, r.path) for r in seen)
    counts["ids asked"] = sum(len(r.json or []) if kind(r.method, r.path) == "bulk status" else 1
                              for r in seen if kind(r.method, r.path).endswith("status"))
    return counts


def serve(conn: Any) -> None:
    """The child process: answers the pipe's commands until ``stop``."""
    import time

    from druid_ingest.testing import FakeDruid

    # the fake's clock starts a month behind the wall's (its time never goes back), so ``history`` can seed past
    # days; ``seed`` sets it to the wall's
    offset = [-30 * 86400.0]
    with FakeDruid(task_duration=3600, pending_delay=0.0, worker_capacity=1_000_000,
                   clock=lambda: time.time() + offset[0]) as fake:
        conn.send(fake.url)
        while True:
            command = conn.recv()
            if command == "stop":
                return
            if command == "count":
                conn.send(count(fake.requests))
            elif command == "clear":
                fake.clear_requests()
                conn.send("ok")
            elif command.startswith("history "):
                conn.send(seed_history(fake, int(command.split()[1]), offset))
            elif command.startswith("seed "):
                first, n = map(int, command.split()[1:])
                offset[0] = 0.0
                fake.state.now()
                ids = fake.seed_tasks(payload(i) for i in range(first, first + n))
                fake.clear_requests()
                conn.send(ids)


def seed_history(fake: Any, days: int, offset: list[float]) -> int:
    """One completed ingestion per datasource and day for the last ``days`` days (an hour each, as the waited
    tasks run): the fake's clock is set back and moved on a day at a time, so each ends SUCCESS in the past."""
    from druid_ingest.testing import index_parallel_spec

    n = 0
    for day in range(min(days, 29)):
        offset[0] = -86400.0 * (days - day)
        fake.state.now()
        first = dt.date(1990, 1, 1) + dt.timedelta(days=day)
        fake.seed_tasks(index_parallel_spec(f"p3_{d}", intervals=[f"{first}/P1D"], task_id=f"p3_history_{day}_{d}")
                        for d in range(DATASOURCES))
        n += DATASOURCES
    offset[0] = 0.0
    fake.state.now()
    fake.clear_requests()
    return n


class FakeProcess:
    """The fake in a spawned child; ``ask`` sends one command and returns the answer."""

    def __init__(self) -> None:
        self._conn, child = mp.Pipe()
        self._proc = mp.get_context("spawn").Process(target=serve, args=(child,), daemon=True)
        self._proc.start()
        self.url: str = self._conn.recv()
        self.pid = self._proc.pid

    def ask(self, command: str) -> Any:
        self._conn.send(command)
        return self._conn.recv()

    def stop(self) -> None:
        self._conn.send("stop")
        self._proc.join(30)
