"""``druid-ingest check-dags``: find the Druid tasks of a DAG folder that can never run, before a backfill stalls.

Airflow never schedules a task whose ``pool_slots`` exceed its pool's size, nor one in a pool that does not exist:
the task sits in ``scheduled`` with an empty log and the reason only in the scheduler's log. A deferrable Druid
task in a pool without ``include_deferred`` holds no slot while it waits, so the pool caps nothing. This reads
the DAG folder (Airflow's DagBag) and the deployment's pools (its metadata database, as ``airflow pools list``
does) and says which task has which of these problems; with a cluster's capacity it also flags specs whose peak
slots exceed the cluster (they run with less parallelism than asked, or deadlock on a one-slot cluster).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from druid_ingest.api import ClusterCapacity
from druid_ingest.ops import slots_finding

__all__ = ["check_dags", "register"]


def _pools() -> dict[str, Any]:
    from airflow.models.pool import Pool
    from airflow.utils.session import create_session

    with create_session() as session:
        return {p.pool: (p.slots, bool(p.include_deferred)) for p in session.query(Pool).all() if p.pool is not None}


def check_dags(folder: str, capacity: ClusterCapacity | None = None) -> list[dict[str, Any]]:
    """One finding per problem: ``{"level": "error"|"warning", "dag_id", "task_id", "message"}``."""
    import contextlib
    import sys

    with contextlib.redirect_stdout(sys.stderr):  # Airflow logs while it parses: keep stdout for our output
        from airflow.dag_processing.dagbag import DagBag

        bag = DagBag(dag_folder=folder)
    findings = [{"level": "error", "dag_id": path, "task_id": "-", "message": f"DAG file does not import: {error}"}
                for path, error in bag.import_errors.items()]
    with contextlib.redirect_stdout(sys.stderr):
        pools = _pools()
    for dag_id, dag in sorted(bag.dags.items()):
        for task in dag.tasks:
            if not type(task).__module__.startswith("airflow_provider_druid_ingest."):
                continue
            found = _check_task(task, pools, capacity)
            findings += [{"level": level, "dag_id": dag_id, "task_id": task.task_id, "message": message}
                         for level, message in found]
    return findings


def _check_task(task: Any, pools: dict[str, Any], capacity: ClusterCapacity | None) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    pool, slots = task.pool, int(task.pool_slots or 1)
    if pool not in pools:
        found.append(("error", f"pool {pool!r} does not exist: Airflow never schedules the task (create it: "
                               f"airflow pools set {pool} <slots> \"Druid task slots\" --include-deferred)"))
    else:
        size, include_deferred = pools[pool]
        if slots > size:
            found.append(("error", f"needs {slots} pool slot(s) but pool {pool!r} has {size}: the task stays "
                                   f"'scheduled' forever (raise the pool to >= {slots}, or lower the spec's "
                                   "maxNumConcurrentSubTasks)"))
        if getattr(task, "deferrable", False) and not include_deferred and pool != "default_pool":
            found.append(("warning", f"pool {pool!r} does not count deferred tasks: while the task waits in the "
                                     "triggerer it holds no slot, so the pool caps nothing (recreate it with "
                                     "--include-deferred)"))
    verdict = slots_finding(slots, capacity) if capacity is not None else None
    if verdict is not None:
        found.append(verdict)
    return found


def register(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """Add ``check-dags`` to the core's ``druid-ingest`` command (entry point group ``druid_ingest.cli``)."""
    c = command("check-dags", "check a DAG folder's Druid tasks against the deployment's pools (imports Airflow)")
    c.add_argument("--dags", required=True, help="the DAG folder to load")
    c.add_argument("--url", help="a Druid URL: also compare each task's slots with the cluster's")
    c.set_defaults(func=_cmd_check_dags)


def _cmd_check_dags(args: argparse.Namespace) -> int:
    from druid_ingest.cli import connect, emit

    capacity = None
    if args.url:
        with connect(args.url) as client:
            capacity = client.capacity()
    findings = check_dags(args.dags, capacity)
    problems = [f for f in findings if f["level"] == "error"]
    lines = [f"{f['level']}: {f['dag_id']}.{f['task_id']}: {f['message']}" for f in findings]
    lines.append(f"{len(problems)} problem(s), {len(findings) - len(problems)} warning(s) in {args.dags}")
    emit(args, {"findings": findings, "problems": len(problems)}, lines)
    return 1 if problems else 0
