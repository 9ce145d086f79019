"""``druid-ingest`` (also ``python -m druid_ingest``): an operator's command line over the core.

    druid-ingest validate SPEC [--interval I ...] [--input LOC ...] [--datasource DS] [--var K=V ...]
                          [--allow-unaligned] [--preflight fail|warn]
    druid-ingest pool --url URL --spec SPEC [--headroom N] [--name druid_ingest] [--for airflow|dagster] [--apply]
    druid-ingest timeouts --url URL --datasource DS [--multiple 3] [--limit 100]
    druid-ingest compact --url URL --datasource DS --interval I [--granularity MONTH] [--idempotency-key K]
    druid-ingest drop --url URL --datasource DS --interval I [--timeout S]
    druid-ingest kill --url URL --datasource DS --interval I [--idempotency-key K]
    druid-ingest watch DS --url URL [--interval I] [--every S] [--cursor-file F] [--once] [--from-now]
    druid-ingest check-dags --dags FOLDER [--url URL]      (added by airflow-provider-druid-ingest)

Every command takes ``--json`` (one JSON object on stdout instead of text). Credentials come from the
environment (``DRUID_USER``/``DRUID_PASSWORD``, or ``DRUID_TOKEN`` for a bearer token), never from arguments,
so they stay out of shell history and process listings. Exit status: 0 fine, 1 the spec, cluster or DAGs have a
problem, 2 usage. Other distributions
add commands through the ``druid_ingest.cli`` entry point group: the provider's ``check-dags`` (it imports Airflow
to read the DAG folder and the deployment's pools) is one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from druid_ingest.cli.terminal import connect, emit
from druid_ingest.cli.watch import cmd_watch
from druid_ingest.ops import DEFAULT_HANDOFF_TIMEOUT, DEFAULT_TASK_TIMEOUT, ingestion_durations, percentile, pool_size
from druid_ingest.wire import DruidError, SpecValidationError

__all__ = ["Register", "build_parser", "connect", "emit", "main", "run_plan"]

INGESTION_TYPES = ("index_parallel", "index")


def _problem_dict(problem: Any) -> dict[str, Any]:
    return {"path": problem.path, "message": problem.message, "value": problem.value, "valid": problem.valid}


def cmd_validate(args: argparse.Namespace) -> int:
    from druid_ingest.planning import build_plan

    variables = dict(v.split("=", 1) for v in args.var or [])
    try:
        plan = build_plan(args.spec, datasource=args.datasource, intervals=args.interval or None,
                          input_locations=args.input or None, variables=variables or None,
                          allow_unaligned=args.allow_unaligned, preflight=args.preflight)
    except SpecValidationError as exc:
        return _refused(args, exc)
    lines = [f"warning: {w}" for w in plan.warnings]
    lines += [f"ok: {plan.describe()}", f"task slots at peak: {plan.peak_slots}", f"task id: {plan.base_task_id}"]
    data = {"ok": True, "warnings": list(plan.warnings), "datasource": plan.datasource, "intervals": plan.intervals,
            "mode": plan.mode, "peak_slots": plan.peak_slots, "base_task_id": plan.base_task_id}
    emit(args, data, lines)
    return 0


def _refused(args: argparse.Namespace, exc: SpecValidationError) -> int:
    lines = [f"error: {p}" for p in exc.problems]
    lines.append(f"{len(exc.problems)} problem(s): Druid would reject or misread this {exc.subject}")
    if exc.hint:
        lines.append(exc.hint.replace("preflight='warn' (CLI: validate --preflight warn)", "--preflight warn"))
    emit(args, {"ok": False, "problems": [_problem_dict(p) for p in exc.problems], "hint": exc.hint}, lines)
    return 1


def cmd_compact(args: argparse.Namespace) -> int:
    from druid_ingest.planning import build_compaction_plan

    return _plan_and_run(args, lambda: build_compaction_plan(
        args.datasource, args.interval, segment_granularity=args.granularity, idempotency_key=args.idempotency_key))


def cmd_kill(args: argparse.Namespace) -> int:
    from druid_ingest.planning import build_kill_plan

    return _plan_and_run(args, lambda: build_kill_plan(args.datasource, args.interval,
                                                       idempotency_key=args.idempotency_key))


def _plan_and_run(args: argparse.Namespace, build: Callable[[], Any]) -> int:
    """Build a plan (a refusal is printed, nothing sent), then :func:`run_plan` it."""
    try:
        plan = build()
    except SpecValidationError as exc:
        return _refused(args, exc)
    return run_plan(args, plan)


def cmd_drop(args: argparse.Namespace) -> int:
    from druid_ingest.planning import build_drop_plan

    try:
        plan = build_drop_plan(args.datasource, args.interval)
    except SpecValidationError as exc:
        return _refused(args, exc)
    with connect(args.url) as client:
        result = client.drop(plan, timeout=args.timeout, on_progress=lambda line: print(line, file=sys.stderr))
    emit(args, {"ok": True, "name": result.name, "interval": result.interval, "marked": result.marked},
         [plan.describe(), result.detail])
    return 0


def run_plan(args: argparse.Namespace, plan: Any) -> int:
    """Submit (or adopt) a plan's work and wait until its data is served: the operators' contract at a terminal.
    A failure (a FAILED task, a timeout) is the core error, printed by :func:`main`."""
    with connect(args.url) as client:
        result = client.ingest(plan, task_timeout=args.task_timeout, handoff_timeout=args.handoff_timeout)
    handoff = result.handoff
    lines = [plan.describe(), f"{result.submit.action} Druid task {result.submit.task_id}: {result.status.state}"]
    if handoff is not None:
        lines.append(f"served: {handoff.state}: {handoff.detail}")
    emit(args, {"ok": True, "task_id": result.submit.task_id, "action": result.submit.action,
                "state": result.status.state, "handoff": handoff.state if handoff else None}, lines)
    return 0


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


def _watch(args: argparse.Namespace) -> int:
    """``watch`` pausing with this module's ``time.sleep``, looked up per run: replacing ``druid_ingest.cli.time``
    replaces the pause between looks and nothing else."""
    return cmd_watch(args, sleep=time.sleep)


def build_parser(extensions: Mapping[str, Register] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="druid-ingest", description=(__doc__ or "").split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, helptext: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
        return p

    v = command("validate", "render and pre-flight check a spec (no HTTP)")
    v.add_argument("spec")
    v.add_argument("--interval", action="append", help="ISO interval to inject (repeatable)")
    v.add_argument("--input", action="append", help="input location to inject (repeatable)")
    v.add_argument("--datasource")
    v.add_argument("--var", action="append", help="K=V for Jinja text templates (repeatable)")
    v.add_argument("--allow-unaligned", action="store_true",
                   help="accept a replace whose intervals are not on segmentGranularity buckets (data outside the "
                        "intervals in those buckets is lost): a warning instead of an error")
    v.add_argument("--preflight", choices=("fail", "warn"), default="fail",
                   help="warn: report every pre-flight problem as a warning and accept the spec as is (the escape "
                        "hatch when Druid accepts a spec the check refuses; default fail)")
    v.set_defaults(func=cmd_validate)
    p = command("pool", "size an Airflow or Dagster pool from Druid's task slots (never one the cluster cannot "
                        "serve)")
    p.add_argument("--url", required=True)
    p.add_argument("--spec", help="spec whose peak slots (k+1) one ingestion needs; default 1")
    p.add_argument("--headroom", type=int, default=0, help="slots to leave for other work (compaction...)")
    p.add_argument("--name", default="druid_ingest", help="the pool's name (default druid_ingest)")
    p.add_argument("--for", dest="orchestrator", choices=("airflow", "dagster"), default="airflow",
                   help="airflow: pool slots = N x (k+1); dagster: concurrency pool limit = N (default airflow)")
    p.add_argument("--apply", action="store_true",
                   help="also run `airflow pools set ... --include-deferred` (or `dagster instance concurrency set`)")
    p.set_defaults(func=cmd_pool)
    t = command("timeouts", "recommend a task_timeout from completed ingestion durations (subtasks excluded)")
    t.add_argument("--url", required=True)
    t.add_argument("--datasource", required=True)
    t.add_argument("--multiple", type=float, default=3.0)
    t.add_argument("--limit", type=int, default=100)
    t.set_defaults(func=cmd_timeouts)
    c = command("compact", "compact one interval of a datasource (e.g. DAY into MONTH segments); exit 0 once the "
                           "compacted data is served. A re-run adopts the same compaction")
    c.add_argument("--url", required=True)
    c.add_argument("--datasource", required=True)
    c.add_argument("--interval", required=True, help="one ISO interval, on --granularity's buckets")
    c.add_argument("--granularity", help="segmentGranularity of the compacted segments (default: Druid's)")
    c.add_argument("--idempotency-key", help="a new key compacts again an interval already compacted")
    c.add_argument("--task-timeout", type=float, default=DEFAULT_TASK_TIMEOUT, help="seconds (default 12 h)")
    c.add_argument("--handoff-timeout", type=float, default=DEFAULT_HANDOFF_TIMEOUT, help="seconds (default 1 h)")
    c.set_defaults(func=cmd_compact)
    d = command("drop", "stop serving one interval of a datasource (mark its segments unused; deep storage keeps "
                        "them until a kill); exit 0 once nothing in it is served. Safe to re-run")
    d.add_argument("--url", required=True)
    d.add_argument("--datasource", required=True)
    d.add_argument("--interval", required=True, help="one ISO interval; every segment inside it is dropped")
    d.add_argument("--timeout", type=float, default=DEFAULT_HANDOFF_TIMEOUT,
                   help="seconds to wait until nothing is served (default 1 h)")
    d.set_defaults(func=cmd_drop)
    k = command("kill", "delete for good the unused segments of one interval (Druid's kill task; used ones are "
                        "never touched); exit 0 once the task succeeded. A re-run adopts the same kill")
    k.add_argument("--url", required=True)
    k.add_argument("--datasource", required=True)
    k.add_argument("--interval", required=True, help="one ISO interval")
    k.add_argument("--idempotency-key", help="a new key kills again (segments dropped since the last kill)")
    k.add_argument("--task-timeout", type=float, default=DEFAULT_TASK_TIMEOUT, help="seconds (default 12 h)")
    k.set_defaults(func=cmd_kill, handoff_timeout=None)
    w = command("watch", "print what changes in what a datasource serves (a version newly served in a time chunk, "
                         "a chunk dropped), one line per change (--json: one JSON line per look with changes). "
                         "With --cursor-file it resumes where it stopped: the cursor is replaced after a batch is "
                         "printed, so delivery is at least once (killed between the two, the batch is printed "
                         "again on restart, once)")
    w.add_argument("datasource")
    w.add_argument("--url", required=True)
    w.add_argument("--interval", help="the window (default all time); segments reaching outside it are not seen")
    w.add_argument("--every", type=float, default=60.0, help="seconds between looks (default 60)")
    w.add_argument("--cursor-file", help="JSON file keeping the watch's cursor between runs")
    w.add_argument("--once", action="store_true", help="one look, then exit")
    w.add_argument("--from-now", action="store_true",
                   help="without a cursor yet, record what is served now instead of reporting it all")
    w.set_defaults(func=_watch)
    for _name, register in sorted({**_installed_commands(), **dict(extensions or {})}.items()):
        register(command)
    return parser


#: a command another distribution adds: ``register(command)`` where ``command(name, helptext)`` returns the
#: command's argparse parser (``--json`` already added); the register sets ``func`` with ``set_defaults``
Register = Callable[[Callable[[str, str], argparse.ArgumentParser]], None]


def _installed_commands() -> dict[str, Register]:
    """The commands of the ``druid_ingest.cli`` entry point group (the provider's ``check-dags``); one that does not
    load (a stale install) is left out rather than breaking the others."""
    from importlib.metadata import entry_points

    found: dict[str, Register] = {}
    for ep in entry_points(group="druid_ingest.cli"):
        try:
            found[ep.name] = ep.load()
        except ImportError:  # pragma: no cover - an entry point of an uninstalled or moved package
            continue
    return found


def main(argv: Sequence[str] | None = None, extensions: Mapping[str, Register] | None = None) -> int:
    """Run one command; ``extensions`` adds commands beside the installed ones (the provider passes its own)."""
    args = build_parser(extensions).parse_args(argv)
    try:
        return int(args.func(args))
    except DruidError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
