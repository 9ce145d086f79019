"""Cost of one handoff check as the datasource grows outside the task's interval: ours vs the naive tutorial check.

The naive check (as in the common "submit, poll, confirm handoff" tutorials) lists every served segment of the
datasource (``GET /datasources/{ds}/segments?full``) and filters
client-side, so its cost grows with the whole datasource. Ours reads only the task's interval from the
metadata store and the served inventory of the task's own span. Both run against the fake Druid over real
HTTP on 127.0.0.1; we print bytes received and wall time per check, side by side, and the ratio.

    .venv/bin/python benchmarks/handoff_cost.py [--days 10 100 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import date, timedelta

import requests

from airflow_provider_druid_ingest.core import ClusterConfig, DruidClient, PollSchedule
from airflow_provider_druid_ingest.testing import FakeDruid

DS = "bench_events"


def naive_check(url: str, interval: str) -> tuple[int, bool]:
    start = interval.split("/")[0]
    r = requests.get(f"{url}/druid/coordinator/v1/datasources/{DS}/segments", params={"full": "true"}, timeout=60)
    loaded = [s for s in r.json() if s.get("interval", "").startswith(start[:10]) and s.get("size", 0) > 0]
    return len(r.content), bool(loaded)


def spec_for(day: date) -> dict:
    from airflow_provider_druid_ingest.testing import index_parallel_spec

    interval = f"{day}/{day + timedelta(days=1)}"
    return index_parallel_spec(datasource=DS, intervals=[interval], segment_granularity="HOUR")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'other days':>10} {'segments':>9} | {'ours bytes':>10} {'ours ms':>8} | {'naive bytes':>11} "
          f"{'naive ms':>8} | {'bytes ratio':>11} {'time ratio':>10}")
    for days in args.days:
        with FakeDruid(task_duration=0.05, handoff_delay=0.05) as fake:
            base = date(2020, 1, 1)
            for i in range(days):  # history outside the task's interval, 24 hourly segments a day
                d = base + timedelta(days=i)
                other = f"{d}T00:00:00Z/{d + timedelta(days=1)}T00:00:00Z"
                fake.preload_segments(DS, other, "2020-01-01T00:00:00.000Z", partitions=1)
            day = date(2026, 11, 1)
            with DruidClient(ClusterConfig(url=fake.url)) as client:
                spec = spec_for(day)
                task = client.ensure_submitted(spec).task_id
                client.wait_for_task(task, 30, PollSchedule(0.05, 0.1))
                interval = spec["spec"]["dataSchema"]["granularitySpec"]["intervals"][0]
                target = client.handoff_target(task, DS, [interval])
                client.wait_for_handoff(target, 30, PollSchedule(0.05, 0.1))
                ours_ms, naive_ms, naive_bytes = [], [], 0
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    assert client.check_handoff(target).state == "loaded"
                    ours_ms.append((time.perf_counter() - t0) * 1000)
                    t0 = time.perf_counter()
                    naive_bytes, _ = naive_check(fake.url, interval)
                    naive_ms.append((time.perf_counter() - t0) * 1000)
                # bytes our check receives: the same two responses, fetched directly
                resp1 = requests.post(f"{fake.url}/druid/coordinator/v1/metadata/datasources/{DS}/segments",
                                      params={"full": "true"}, json=[interval], timeout=60)
                span = interval.replace("/", "_")
                resp2 = requests.get(f"{fake.url}/druid/coordinator/v1/datasources/{DS}/intervals/{span}",
                                     params={"full": "true"}, timeout=60)
                ours_bytes = len(resp1.content) + len(resp2.content)
                o_ms, s_ms = statistics.median(ours_ms), statistics.median(naive_ms)
                segments = days * 1 + 24
                print(f"{days:>10} {segments:>9} | {ours_bytes:>10} {o_ms:>8.1f} | {naive_bytes:>10} {s_ms:>8.1f} | "
                      f"{naive_bytes / ours_bytes:>10.1f}x {s_ms / o_ms:>9.1f}x")


if __name__ == "__main__":
    main()
