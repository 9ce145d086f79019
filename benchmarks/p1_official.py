"""P1's run of the official provider (``apache-airflow-providers-apache-druid``) against the fake Druid.

Run by ``p1_requests_per_ingestion.py`` with ``benchmarks/.venv-official``'s Python (the provider lives there, not
in the project's venv), with this project's fake Druid on ``PYTHONPATH``. ``DruidHook.submit_indexing_job`` posts
the spec, then polls ``/status`` and sleeps ``timeout`` seconds (1) between polls from the worker; its sleeps
advance the simulated clock the fake runs on. Prints one JSON line: requests, status polls and detection latency
per ingestion (latency counts the sleep it takes before it reads each answer).

    <official python> benchmarks/p1_official.py MINUTES SAMPLES
"""

from __future__ import annotations

import json
import os
import random
import sys
import types
from pathlib import Path

import requests

MINUTES, SAMPLES = float(sys.argv[1]), int(sys.argv[2])
HERE = Path(__file__).resolve().parent


def main() -> None:
    from druid_ingest.testing import FakeDruid, SimClock, TaskPlan

    clock = SimClock()
    rng = random.Random(11)
    template = json.loads((HERE.parent / "dags/specs/events_web.json").read_text())
    counts, polls, latencies = [], [], []
    with FakeDruid(clock=clock.now, task_duration=60 * MINUTES, pending_delay=0.5, worker_capacity=16) as fake:
        host, port = fake.url.split("//")[1].split(":")
        os.environ["AIRFLOW_CONN_DRUID_INGEST_DEFAULT"] = json.dumps(
            {"conn_type": "http", "host": host, "port": int(port), "extra": {"endpoint": "druid/indexer/v1/task"}})
        from airflow.providers.apache.druid.hooks import druid as official

        official.time = types.SimpleNamespace(sleep=clock.sleep)  # its waits advance the simulated clock
        seen: dict[str, float] = {}
        real_get = requests.get

        def get(url: str, *args: object, **kwargs: object) -> requests.Response:
            resp = real_get(url, *args, **kwargs)
            status = resp.json().get("status") or {}
            if status.get("statusCode") in ("SUCCESS", "FAILED"):
                seen.setdefault(status["id"], clock.now() + 1.0)  # it reads the answer after its 1 s sleep
            return resp

        official.requests = types.SimpleNamespace(get=get, post=requests.post, auth=requests.auth)
        for n in range(SAMPLES):
            fake.plan_next_task(TaskPlan(duration=60 * MINUTES * rng.uniform(0.98, 1.02)))
            spec = json.loads(json.dumps(template))
            spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = [f"2025-02-{n + 1:02d}/2025-02-{n + 2:02d}"]
            fake.clear_requests()
            known = set(seen)
            official.DruidHook(timeout=1).submit_indexing_job(json.dumps(spec))
            task = fake.task(next(t for t in seen if t not in known))  # Druid named it: the one that just ended
            counts.append(len(fake.requests))
            polls.append(len([r for r in fake.requests if r.path.endswith("/status")]))
            latencies.append(seen[task.id] - task.finished_at)
    print(json.dumps({"counts": counts, "polls": polls, "latencies": latencies}))


if __name__ == "__main__":
    main()
