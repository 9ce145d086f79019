"""``druid-ingest auto-compaction pause|resume DS``: a datasource's auto-compaction off around a backfill, and back.

The pause prints its record (``--json``: the record itself) and with ``--record-file`` also writes it there (whole
or not at all); the resume reads it from that file. Without a record file the resume recovers the config the pause
deleted from Druid's audit history (``ops/auto_compaction.py``), so a lost record loses nothing on Druid 33.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from druid_ingest.cli.terminal import connect, emit
from druid_ingest.errors import DruidUsageError

__all__ = ["add_auto_compaction", "cmd_auto_compaction"]


def add_auto_compaction(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    a = command("auto-compaction", "pause a datasource's auto-compaction around a backfill (its Coordinator "
                                   "compaction config saved and deleted, or its compaction supervisor suspended), "
                                   "and resume it")
    sub = a.add_subparsers(dest="action", required=True)
    for action, helptext in (("pause", "pause it; prints the record the resume takes"),
                             ("resume", "put back what the pause saved; a config re-created meanwhile is left")):
        p = sub.add_parser(action, help=helptext)
        p.add_argument("datasource")
        p.add_argument("--url", required=True)
        p.add_argument("--record-file", help="where the pause writes its record and the resume reads it (default: "
                                             "none; the resume then recovers the config from Druid's audit history)")
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print one JSON object instead of text")
        if action == "pause":
            p.add_argument("--adopt-suspended", action="store_true",
                           help="a compaction supervisor found already suspended is this pause's (a retry): the "
                                "resume resumes it (default: refuse, nothing changed)")
    a.set_defaults(func=cmd_auto_compaction)


def _read_record(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise DruidUsageError(f"--record-file: cannot read a pause record from {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise DruidUsageError(f"--record-file: {path} holds no pause record (a JSON object)")
    return data


def _write_record(path: str, record: dict[str, Any]) -> None:
    """Whole or not at all: a crash mid-write never leaves half a record for the resume."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.")
    with os.fdopen(fd, "w") as out:
        json.dump(record, out, indent=2)
    os.replace(tmp, target)


def cmd_auto_compaction(args: argparse.Namespace) -> int:
    record = _read_record(args.record_file) if args.action == "resume" and args.record_file else None
    with connect(args.url) as client:
        if args.action == "pause":
            paused = client.pause_auto_compaction(args.datasource, adopt_suspended=args.adopt_suspended)
            if args.record_file:
                _write_record(args.record_file, paused.to_json())
            emit(args, paused.to_json(), [paused.detail, json.dumps(paused.to_json())])
            return 0
        done = client.resume_auto_compaction(args.datasource, record)
    emit(args, {"datasource": done.datasource, "outcome": done.outcome, "detail": done.detail}, [done.detail])
    return 0
