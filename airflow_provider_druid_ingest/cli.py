"""``druid-ingest``: an operator's command line over the core (no Airflow import).

    druid-ingest validate SPEC [--interval I ...] [--input LOC ...] [--datasource DS] [--var K=V ...]
    druid-ingest pool --url URL --spec SPEC [--headroom N]
    druid-ingest timeouts --url URL --datasource DS [--multiple 3] [--limit 100]

Credentials come from the environment (``DRUID_USER``/``DRUID_PASSWORD``), never from arguments, so they stay
out of shell history and process listings. Exit status: 0 fine, 1 the spec or cluster has a problem, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from .core.config import ClusterConfig
from .core.errors import DruidError, SpecValidationError
from .core.plan import IngestionPlan, build_plan
from .core.retry import RetryPolicy

__all__ = ["build_parser", "cmd_pool", "cmd_timeouts", "cmd_validate", "main", "percentile", "pool_size"]


def _plan(args: argparse.Namespace) -> IngestionPlan:
    variables = dict(v.split("=", 1) for v in args.var or [])
    return build_plan(
        args.spec,
        datasource=args.datasource,
        intervals=args.interval or None,
        input_locations=args.input or None,
        variables=variables or None,
    )


def cmd_validate(args: argparse.Namespace) -> int:
    try:
        plan = _plan(args)
    except SpecValidationError as exc:
        for problem in exc.problems:
            print(f"error: {problem}")
        print(f"{len(exc.problems)} problem(s): Druid would reject or misread this spec")
        return 1
    for warning in plan.warnings:
        print(f"warning: {warning}")
    print(f"ok: {plan.describe()}")
    print(f"task slots at peak: {plan.peak_slots}")
    print(f"task id: {plan.base_task_id}")
    return 0


def _client(url: str) -> Any:
    from .core.sync_client import DruidClient

    config = ClusterConfig(url=url, username=os.environ.get("DRUID_USER"), password=os.environ.get("DRUID_PASSWORD"))
    return DruidClient(config, RetryPolicy(max_attempts=3, initial_delay=0.2, deadline=30))  # a human is waiting


def pool_size(total_slots: int, slots_per_task: int, headroom: int = 0) -> int:
    """Concurrent ingestions that fit: N x (k+1) <= total - headroom (Druid's capacity rule: druid-contract
    §batch-rules)."""
    return max(1, (max(0, total_slots - headroom)) // max(1, slots_per_task))


def cmd_pool(args: argparse.Namespace) -> int:
    try:
        per_task = build_plan(args.spec).peak_slots if args.spec else 1
    except SpecValidationError as exc:
        print(exc, file=sys.stderr)
        return 1
    with _client(args.url) as client:
        capacity = client.capacity()
    if capacity.total_slots == 0:
        print("error: Druid lists no worker slots (no MiddleManager/Indexer registered)")
        return 1
    size = pool_size(capacity.total_slots, per_task, args.headroom)
    print(f"workers: {len(capacity.workers)}, task slots: {capacity.total_slots} ({capacity.used_slots} in use)")
    print(f"slots per ingestion: {per_task}; headroom kept free: {args.headroom}")
    print(f"pool: {size} concurrent ingestion(s) x {per_task} slot(s) = {size * per_task} slots")
    print(f'airflow pools set druid_ingest {size * per_task} "Druid task slots" --include-deferred')
    return 0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def cmd_timeouts(args: argparse.Namespace) -> int:
    with _client(args.url) as client:
        tasks = client.completed_tasks(args.datasource, limit=args.limit)
    durations = [t.duration_ms / 1000 for t in tasks if t.state == "SUCCESS" and t.duration_ms]
    if not durations:
        print(f"error: no completed SUCCESS tasks for {args.datasource!r} to learn from")
        return 1
    p50, p95 = percentile(durations, 50), percentile(durations, 95)
    timeout = max(600, math.ceil(args.multiple * p95 / 60) * 60)
    print(f"{len(durations)} successful task(s): p50 {p50:.0f}s, p95 {p95:.0f}s, max {max(durations):.0f}s")
    print(f"task_timeout={timeout}  # {args.multiple} x p95, at least 10 minutes")
    print(json.dumps({"task_timeout": timeout, "p50_s": round(p50, 1), "p95_s": round(p95, 1)}))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="druid-ingest", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="render and pre-flight check a spec (no HTTP)")
    v.add_argument("spec")
    v.add_argument("--interval", action="append", help="ISO interval to inject (repeatable)")
    v.add_argument("--input", action="append", help="input location to inject (repeatable)")
    v.add_argument("--datasource")
    v.add_argument("--var", action="append", help="K=V for Jinja text templates (repeatable)")
    v.set_defaults(func=cmd_validate)
    p = sub.add_parser("pool", help="size an Airflow pool from Druid's task slots")
    p.add_argument("--url", required=True)
    p.add_argument("--spec", help="spec whose peak slots (k+1) one ingestion needs; default 1")
    p.add_argument("--headroom", type=int, default=0, help="slots to leave for other work (compaction...)")
    p.set_defaults(func=cmd_pool)
    t = sub.add_parser("timeouts", help="recommend a task_timeout from completed task durations")
    t.add_argument("--url", required=True)
    t.add_argument("--datasource", required=True)
    t.add_argument("--multiple", type=float, default=3.0)
    t.add_argument("--limit", type=int, default=100)
    t.set_defaults(func=cmd_timeouts)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except DruidError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
