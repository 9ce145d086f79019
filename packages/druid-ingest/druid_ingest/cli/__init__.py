"""``druid-ingest`` (also ``python -m druid_ingest``): an operator's command line over the core.

    druid-ingest validate SPEC [--interval I ...] [--input LOC ...] [--datasource DS] [--var K=V ...]
                          [--allow-unaligned] [--preflight fail|warn]
    druid-ingest pool --url URL --spec SPEC [--headroom N] [--name druid_ingest] [--for airflow|dagster] [--apply]
    druid-ingest timeouts --url URL --datasource DS [--multiple 3] [--limit 100]
    druid-ingest compact --url URL --datasource DS --interval I [--granularity MONTH] [--idempotency-key K]
                         [--allow-empty]
    druid-ingest drop --url URL --datasource DS --interval I [--timeout S]   (so every verb of plans.SEGMENT_WRITES)
    druid-ingest kill --url URL --datasource DS --interval I [--idempotency-key K]
    druid-ingest watch DS --url URL [--interval I] [--every S] [--cursor-file F] [--once] [--from-now]
    druid-ingest auto-compaction pause|resume DS --url URL [--record-file F] [--adopt-suspended]
    druid-ingest check-dags --dags FOLDER [--url URL]      (added by airflow-provider-druid-ingest)

Every command takes ``--json`` (one JSON object on stdout instead of text). Credentials come from the
environment (``DRUID_USER``/``DRUID_PASSWORD``, or ``DRUID_TOKEN`` for a bearer token), never from arguments,
so they stay out of shell history and process listings. Exit status: 0 fine, 1 the spec, cluster or DAGs have a
problem, 2 usage. Other distributions
add commands through the ``druid_ingest.cli`` entry point group: the provider's ``check-dags`` (it imports Airflow
to read the DAG folder and the deployment's pools) is one.

This module is the command line's shape (the parser) and its entry point; the verbs live by kind in ``plans``
(validate, compact, kill, the segment writes), ``sizing`` (pool, timeouts), ``watch`` and ``auto_compaction``, over
``terminal`` (emit, connect).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping, Sequence

from druid_ingest.cli.auto_compaction import add_auto_compaction
from druid_ingest.cli.plans import SEGMENT_WRITES, cmd_compact, cmd_kill, cmd_segment_write, cmd_validate, run_plan
from druid_ingest.cli.sizing import cmd_pool, cmd_timeouts
from druid_ingest.cli.terminal import connect, emit
from druid_ingest.cli.watch import cmd_watch
from druid_ingest.errors import DruidError
from druid_ingest.ops import DEFAULT_HANDOFF_TIMEOUT, DEFAULT_TASK_TIMEOUT, WATCH_EVERY

__all__ = ["Register", "build_parser", "connect", "emit", "main", "run_plan"]


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

    def one_datasource(p: argparse.ArgumentParser, interval_help: str | None = None) -> None:
        """The cluster and the datasource a verb works on, and its one interval when ``interval_help`` is given."""
        p.add_argument("--url", required=True)
        p.add_argument("--datasource", required=True)
        if interval_help is not None:
            p.add_argument("--interval", required=True, help=interval_help)

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
    one_datasource(t)
    t.add_argument("--multiple", type=float, default=3.0)
    t.add_argument("--limit", type=int, default=100)
    t.set_defaults(func=cmd_timeouts)
    c = command("compact", "compact one interval of a datasource (e.g. DAY into MONTH segments); exit 0 once the "
                           "compacted data is served. A re-run adopts the same compaction")
    one_datasource(c, "one ISO interval, on --granularity's buckets")
    c.add_argument("--granularity", help="segmentGranularity of the compacted segments (default: Druid's)")
    c.add_argument("--idempotency-key", help="a new key compacts again an interval already compacted")
    c.add_argument("--allow-empty", action="store_true",
                   help="an interval without used segments is done (exit 0, 'nothing to compact') instead of an "
                        "error")
    c.add_argument("--task-timeout", type=float, default=DEFAULT_TASK_TIMEOUT, help="seconds (default 12 h)")
    c.add_argument("--handoff-timeout", type=float, default=DEFAULT_HANDOFF_TIMEOUT, help="seconds (default 1 h)")
    c.set_defaults(func=cmd_compact)
    for verb, write in SEGMENT_WRITES.items():
        d = command(verb, write.helptext)
        one_datasource(d, write.interval_help)
        d.add_argument("--timeout", type=float, default=DEFAULT_HANDOFF_TIMEOUT, help=write.timeout_help)
        if write.allow_empty_help:
            d.add_argument("--allow-empty", action="store_true", help=write.allow_empty_help)
        d.set_defaults(func=cmd_segment_write)
    k = command("kill", "delete for good the unused segments of one interval (Druid's kill task; used ones are "
                        "never touched); exit 0 once the task succeeded. A re-run adopts the same kill")
    one_datasource(k, "one ISO interval")
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
    w.add_argument("--every", type=float, default=WATCH_EVERY,
                   help=f"seconds between looks (default {WATCH_EVERY:g}; a fifth of it while a version loads)")
    w.add_argument("--cursor-file", help="JSON file keeping the watch's cursor between runs")
    w.add_argument("--once", action="store_true", help="one look, then exit")
    w.add_argument("--from-now", action="store_true",
                   help="without a cursor yet, record what is served now instead of reporting it all")
    w.set_defaults(func=_watch)
    add_auto_compaction(command)
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
