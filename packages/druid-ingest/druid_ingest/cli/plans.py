"""The verbs that plan work and, but for ``validate``, run it: ``validate``, ``compact``, ``kill``, and one verb per
segment write (:data:`SEGMENT_WRITES`: ``drop``, ``restore``).

Together because they share one path: a plan is built first, and a refusal is printed with nothing sent.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from druid_ingest.cli.terminal import connect, emit
from druid_ingest.errors import SpecValidationError

__all__ = ["SEGMENT_WRITES", "SegmentWriteVerb", "cmd_compact", "cmd_kill", "cmd_segment_write", "cmd_validate",
           "run_plan"]


@dataclass(frozen=True)
class SegmentWriteVerb:
    """A verb over a segment write: its help, and the planning builder ``(datasource, interval)`` it runs."""

    helptext: str
    interval_help: str
    timeout_help: str
    #: the name of a builder in ``druid_ingest.planning`` (looked up when the verb runs: the parser stays cheap)
    builder: str
    #: the help of ``--allow-empty`` when the write wants its interval served (the builder takes ``allow_empty``)
    allow_empty_help: str | None = None


#: verb -> the segment write it runs (``cmd_segment_write``); the parser adds one command per row
SEGMENT_WRITES: dict[str, SegmentWriteVerb] = {
    "drop": SegmentWriteVerb(
        "stop serving one interval of a datasource (mark its segments unused; deep storage keeps them until a kill); "
        "exit 0 once nothing in it is served. Safe to re-run",
        "one ISO interval; every segment inside it is dropped", "seconds to wait until nothing is served (default 1 h)",
        "build_drop_plan"),
    "restore": SegmentWriteVerb(
        "serve again one dropped interval of a datasource (mark its unused segments used; not once a kill deleted "
        "them); exit 0 once every segment visible in it is served and routed. Safe to re-run",
        "one ISO interval; the unused segments inside it come back", "seconds to wait until all is served "
        "(default 1 h)", "build_restore_plan",
        "an interval with nothing to restore (never ingested, or killed) is done (exit 0) instead of an error"),
}


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


def cmd_segment_write(args: argparse.Namespace) -> int:
    """The verb ``args.command`` names in :data:`SEGMENT_WRITES`: plan it (a refusal printed, nothing sent), then
    write and wait for the state it wants."""
    import druid_ingest.planning

    verb = SEGMENT_WRITES[args.command]
    build = getattr(druid_ingest.planning, verb.builder)
    options = {"allow_empty": args.allow_empty} if verb.allow_empty_help else {}
    try:
        plan = build(args.datasource, args.interval, **options)
    except SpecValidationError as exc:
        return _refused(args, exc)
    with connect(args.url) as client:
        result = client.segment_write(plan, timeout=args.timeout,
                                      on_progress=lambda line: print(line, file=sys.stderr))
    emit(args, {"ok": True, "name": result.name, "interval": result.interval, "marked": result.marked,
                "served": result.served},
         [plan.describe(), result.detail])
    return 0


def run_plan(args: argparse.Namespace, plan: Any) -> int:
    """Submit (or adopt) a plan's work and wait until its data is served: the operators' contract at a terminal.
    A failure (a FAILED task, a timeout) is the core error, printed by :func:`druid_ingest.cli.main`."""
    with connect(args.url) as client:
        result = client.ingest(plan, task_timeout=args.task_timeout, handoff_timeout=args.handoff_timeout,
                               allow_empty=getattr(args, "allow_empty", False))
    if result.nothing_to_compact is not None:  # the core's verdict (allow_empty): green, nothing written
        emit(args, {"ok": True, "task_id": result.submit.task_id, "action": result.submit.action,
                    "state": result.status.state, "handoff": None, "outcome": result.nothing_to_compact.outcome},
             [plan.describe(), result.nothing_to_compact.line])
        return 0
    handoff = result.handoff
    lines = [plan.describe(), f"{result.submit.action} Druid task {result.submit.task_id}: {result.status.state}"]
    if handoff is not None:
        lines.append(f"served: {handoff.state}: {handoff.detail}")
    emit(args, {"ok": True, "task_id": result.submit.task_id, "action": result.submit.action,
                "state": result.status.state, "handoff": handoff.state if handoff else None}, lines)
    return 0
