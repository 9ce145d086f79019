"""P6: triggerers x waits: requests per minute to the Overlord with 1, 2 and 4 triggerers at 1000 waits each.

Each triggerer is the P3 set-up (``p3_triggerer.py``: Airflow's TriggerRunnerSupervisor and its forked
TriggerRunner running ``DruidTaskTrigger`` waits), all against one fake Druid in its own process. The shared
poller is per event loop, i.e. per triggerer: triggerers share nothing but Druid, so the Overlord sees each one's
bulk status call per tick, its own first-look herd and its own history reads. Per size, fresh triggerers and fresh
tasks; measuring starts once every triggerer's poller has given all its waits their first look.

    .venv/bin/python benchmarks/p6_triggerers.py [--triggerers 1 2 4] [--waits 1000] [--window 60]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import machine, print_machine, print_table, write_results  # noqa: E402
from p3_fake import FakeProcess  # noqa: E402
from p3_triggerer import run  # noqa: E402

TICK = 1.0  # the poller's DEFAULT_TICK: at most one bulk status call per second per triggerer


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--triggerers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--waits", type=int, default=1000, help="waits per triggerer")
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--max-herd", type=float, default=300.0)
    args = parser.parse_args()
    info = machine("aiohttp", "apache-airflow-core")
    print_machine(info)
    fake = FakeProcess()
    rows, first = [], 0
    try:
        for k in args.triggerers:
            row = run(args.waits, k, args.window, args.max_herd, first_task=first, fake=fake)
            first += args.waits * k
            per = row["per_triggerer"]
            row["bound_bulk_per_min"] = round(k * 60 / TICK)
            row["lag_p99_worst_ms"] = max((p["loop_lag_p99_ms"] or 0) for p in per)
            row["rss_growth_worst_mb"] = max(p["rss_growth_mb"] for p in per)
            row["requests_per_min_per_triggerer"] = round(row["requests_per_min"] / k, 1)
            rows.append(row)
            print(json.dumps({key: v for key, v in row.items() if key != "per_triggerer"}, default=str), flush=True)
    finally:
        fake.stop()
    print_table([("triggerers", "triggerers"), ("waits_each", "waits each"), ("requests_per_min", "Overlord req/min"),
                 ("requests_per_min_per_triggerer", "per triggerer"), ("bulk_calls_per_min", "bulk calls/min"),
                 ("bound_bulk_per_min", "bound (k x 60)"), ("status_reads_per_min", "status reads/min"),
                 ("herd_requests", "herd requests"), ("herd_per_100_waits", "herd per 100 (goal <= 2)"),
                 ("lag_p99_worst_ms", "worst lag p99 ms"), ("rss_growth_worst_mb", "worst RSS growth MB")], rows)
    if rows:
        base = rows[0]["requests_per_min"] / rows[0]["triggerers"]
        for row in rows[1:]:
            print(f"{row['triggerers']} triggerers: {row['requests_per_min']} req/min = "
                  f"{row['requests_per_min'] / max(base, 1e-9):.2f}x one triggerer's (expected ~{row['triggerers']}x: "
                  f"linear in triggerers, flat in waits)")
    write_results("p6_triggerers", {"machine": info, "window_s": args.window, "rows": rows})


if __name__ == "__main__":
    main()
