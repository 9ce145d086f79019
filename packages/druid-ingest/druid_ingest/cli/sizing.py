"""The verbs that size a deployment's settings from what the cluster reports: ``pool`` and ``timeouts``.

Together because both read the cluster and advise a number; only ``pool --apply`` runs anything (the
orchestrator's own CLI), never Druid work.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
from typing import Any

from druid_ingest.cli.terminal import connect, emit
from druid_ingest.errors import SpecValidationError
from druid_ingest.ops import ingestion_durations, percentile, pool_size

__all__ = ["INGESTION_TYPES", "cmd_pool", "cmd_timeouts"]

INGESTION_TYPES = ("index_parallel", "index")


def cmd_pool(args: argparse.Namespace) -> int:
    from druid_ingest.planning import build_plan

    try:
        # sizing reads the slots only: an unaligned replace is refused where it is planned to run, not here
        per_task = build_plan(args.spec, allow_unaligned=True).peak_slots if args.spec else 1
    except SpecValidationError as exc:
        print(exc, file=sys.stderr)
        return 1
    with connect(args.url) as client:
        capacity = client.capacity()
    usable = capacity.total_slots - args.headroom
    size = pool_size(capacity.total_slots, per_task, args.headroom)
    data: dict[str, Any] = {"workers": len(capacity.workers), "total_slots": capacity.total_slots,
                            "used_slots": capacity.used_slots, "slots_per_ingestion": per_task,
                            "headroom": args.headroom, "concurrent_ingestions": size}
    lines = [f"workers: {len(capacity.workers)}, task slots: {capacity.total_slots} ({capacity.used_slots} in use)",
             f"slots per ingestion: {per_task}; headroom kept free: {args.headroom}"]
    if size == 0:
        fix = (f"lower tuningConfig.maxNumConcurrentSubTasks to {max(1, usable - 1)} (k+1 slots at peak)"
               if usable >= 2 else "add Druid workers (MiddleManagers/Indexers) or lower the headroom")
        data["error"] = (f"one ingestion of this spec needs {per_task} task slots at peak, but the cluster offers "
                         f"{max(0, usable)} ({capacity.total_slots} minus headroom {args.headroom}); {fix}")
        emit(args, data, [*lines, f"error: {data['error']}"])
        return 1
    if args.orchestrator == "dagster":  # a Dagster pool counts steps (one slot each): the limit is N itself
        command = ["dagster", "instance", "concurrency", "set", args.name, str(size)]
        data.update(pool_slots=size, command=command, applied=False)
        lines += [f"pool: {size} concurrent ingestion(s) of {per_task} Druid slot(s) each", " ".join(command)]
        if (warning := _sqlite_pool_warning(os.environ.get("DAGSTER_HOME"))) is not None:
            data["warning"] = warning
            lines.append(f"warning: {warning}")
    else:
        command = ["airflow", "pools", "set", args.name, str(size * per_task), "Druid task slots",
                   "--include-deferred"]
        data.update(pool_slots=size * per_task, command=command, applied=False)
        lines += [f"pool: {size} concurrent ingestion(s) x {per_task} slot(s) = {size * per_task} slots",
                  " ".join(command[:5]) + f' "{command[5]}" ' + command[6]]
    if args.apply:
        data["applied"], message = _apply_pool(command)
        lines.append(message)
        data["apply_output"] = message
        if not data["applied"]:
            emit(args, data, lines)
            return 1
    emit(args, data, lines)
    return 0


def _sqlite_pool_warning(dagster_home: str | None) -> str | None:
    """Dagster's SQLite storage reads a free slot, then writes it without checking it is still free: two steps
    claiming at the same instant can both hold a pool's one slot (Dagster's ``_claim_concurrency_slot``)."""
    if not dagster_home:
        return None
    try:
        with open(os.path.join(dagster_home, "dagster.yaml"), encoding="utf-8") as config:
            text = config.read().lower()
    except OSError:
        text = ""
    if "postgres" in text or "mysql" in text:
        return None
    return ("$DAGSTER_HOME/dagster.yaml names no postgres or mysql storage, so this instance uses SQLite, whose "
            "slot claims are not atomic across processes: two runs starting together can both take the last "
            "slot. Use dagster-postgres storage where the pool must hold")


def _apply_pool(command: list[str]) -> tuple[bool, str]:
    """Run ``airflow pools set`` or ``dagster instance concurrency set`` (the deployment's own CLI, so its config
    and database, or ``$DAGSTER_HOME`` instance, are the ones used)."""
    tool = command[0]
    found = shutil.which(tool) or os.path.join(os.path.dirname(sys.executable), tool)
    if not os.path.exists(found):
        return False, f"error: --apply needs the {tool} CLI on PATH (run this where {tool.capitalize()} is installed)"
    done = subprocess.run([found, *command[1:]], capture_output=True, text=True, timeout=300)
    output = (done.stdout + done.stderr).strip().splitlines()
    last = output[-1] if output else ""
    return done.returncode == 0, (f"applied: {last}" if done.returncode == 0 else f"error: {last}")


def cmd_timeouts(args: argparse.Namespace) -> int:
    with connect(args.url) as client:
        tasks = [t for kind in INGESTION_TYPES for t in client.completed_tasks(args.datasource, args.limit, kind)]
    durations = ingestion_durations(tasks)
    if not durations:
        message = f"no completed SUCCESS ingestion tasks for {args.datasource!r} to learn from"
        emit(args, {"error": message}, [f"error: {message}"])
        return 1
    p50, p95 = percentile(durations, 50), percentile(durations, 95)
    timeout = max(600, math.ceil(args.multiple * p95 / 60) * 60)
    data = {"ingestions": len(durations), "p50_s": round(p50, 1), "p95_s": round(p95, 1),
            "max_s": round(max(durations), 1), "task_timeout": timeout}
    emit(args, data, [
        f"{len(durations)} successful ingestion(s) (subtasks excluded): p50 {p50:.0f}s, p95 {p95:.0f}s, "
        f"max {max(durations):.0f}s",
        f"task_timeout={timeout}  # {args.multiple} x p95, at least 10 minutes",
        json.dumps({"task_timeout": timeout, "p50_s": round(p50, 1), "p95_s": round(p95, 1)}),
    ])
    return 0
