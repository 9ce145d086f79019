"""The fake Druid of the triggerer failover test, in a process of its own (the triggerers poll it over a real
socket). Its tasks run until the test says ``finish``: the fake's clock then jumps an hour, so every wait sees
SUCCESS at its next poll. The pipe answers ``submit N``, ``finish``, ``requests``, ``tasks`` (id, status), ``stop``."""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass
from typing import Any

HOUR = 3600.0


def serve(conn: Any) -> None:
    import requests
    from druid_ingest.testing import FakeDruid, index_parallel_spec

    offset = [0.0]

    def submit(i: int) -> str:
        task_id = f"celery_failover_{int(time.time())}_{i}"
        spec = index_parallel_spec(f"celery_failover_{i}", intervals=["2020-01-01/2020-01-02"], task_id=task_id)
        answer = requests.post(fake.url + "/druid/indexer/v1/task", json=spec, timeout=60)
        answer.raise_for_status()
        return task_id

    with FakeDruid(task_duration=HOUR / 2, pending_delay=0.0, worker_capacity=10_000, handoff_delay=0.1,
                   clock=lambda: time.time() + offset[0]) as fake:
        conn.send(fake.url)
        while True:
            command = conn.recv()
            if command == "stop":
                return
            if command.startswith("submit "):
                conn.send([submit(i) for i in range(int(command.split()[1]))])
            elif command == "finish":
                offset[0] += HOUR
                conn.send(True)
            elif command == "requests":  # (real time, method, path, ids asked) of every request so far
                conn.send([(r.time, r.method, r.path, r.json if isinstance(r.json, list) else None)
                           for r in fake.requests])
            elif command == "tasks":  # (task id, status) of every task, read off the state (no request)
                fake.state.now()
                with fake.state.lock:
                    conn.send(sorted((t.id, t.state) for t in fake.state.tasks.values()))


@dataclass
class FakeProcess:
    url: str
    _conn: Any
    _proc: Any

    def ask(self, command: str) -> Any:
        self._conn.send(command)
        return self._conn.recv()

    def close(self) -> None:
        self._conn.send("stop")
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()


def start() -> FakeProcess:
    ctx = multiprocessing.get_context("spawn")
    mine, theirs = ctx.Pipe()
    proc = ctx.Process(target=serve, args=(theirs,), daemon=True)
    proc.start()
    return FakeProcess(mine.recv(), mine, proc)
