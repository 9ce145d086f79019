"""``druid-ingest watch``: the look loop and the cursor file it resumes from.

Its own module because it is the one verb that runs until killed: a kill may land between printing a batch and
keeping its cursor, so the cursor file is replaced in one step (at least once delivery, never a half-written file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from druid_ingest.cli.terminal import connect
from druid_ingest.errors import DruidError, DruidFatalError

__all__ = ["cmd_watch"]


def cmd_watch(args: argparse.Namespace, sleep: Callable[[float], None] = time.sleep) -> int:
    """Look every ``--every`` seconds; print each batch, then keep its cursor (see the verb's help).
    ``sleep`` is the pause between looks (the command passes its own, so a test can replace it alone)."""
    from druid_ingest.ops import next_look

    cursor = _read_cursor(args.cursor_file)
    pause = args.every
    with connect(args.url) as client:
        while True:
            try:
                batch = client.served_changes(args.datasource, args.interval, cursor, from_now=args.from_now)
            except DruidError as exc:
                if args.once or isinstance(exc, DruidFatalError):  # a wrong cursor, URL or login: say so, stop
                    raise
                print(f"warning: {exc}; looking again in {args.every:g}s", file=sys.stderr)
                pause = args.every
            else:
                if batch.changes:
                    print(json.dumps(batch.to_dict()) if args.json else "\n".join(
                        _change_line(c) for c in batch.changes), flush=True)
                if args.cursor_file and batch.cursor != cursor:
                    _write_atomically(args.cursor_file, batch.cursor.to_json())
                cursor, pause = batch.cursor, next_look(batch, args.every)
            if args.once:
                return 0
            sleep(pause)


def _change_line(c: Any) -> str:
    was = f" (was {', '.join(c.replaced)})" if c.replaced else ""
    return f"{c.kind} {c.interval}" + (f": version {c.version} by {c.writer}" if c.version else "") + was


def _read_cursor(path: str | None) -> Any:
    """The cursor kept in ``path`` (None when there is none yet); DruidUsageError when it is not one."""
    from druid_ingest.ops import WatchCursor

    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as kept:
        return WatchCursor.from_json(kept.read())


def _write_atomically(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` in one step (a kill leaves the old cursor or the new one, never half)."""
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".cursor-", delete=False, encoding="utf-8") as tmp:
        tmp.write(text)
        tmp.flush()
        os.fsync(tmp.fileno())
    os.replace(tmp.name, path)
