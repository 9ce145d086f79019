"""What every ``druid-ingest`` verb shares at a terminal: its answer as text or JSON, and a client for a human.

Apart from the verbs so that each verb module, and other distributions' commands (the provider's ``check-dags``,
through :mod:`druid_ingest.cli`), use the same two without importing the command's parser.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from druid_ingest.wire import ClusterConfig, RetryPolicy

__all__ = ["connect", "emit"]


def emit(args: argparse.Namespace, data: dict[str, Any], lines: list[str]) -> None:
    """The command's answer: ``data`` as JSON with ``--json``, else ``lines``."""
    print(json.dumps(data, indent=2, default=str) if args.json else "\n".join(lines))


def connect(url: str) -> Any:
    """A DruidClient for a human at a terminal: credentials from the environment, a short retry budget."""
    from druid_ingest.clients import DruidClient

    config = ClusterConfig(url=url, username=os.environ.get("DRUID_USER"), password=os.environ.get("DRUID_PASSWORD"),
                           token=os.environ.get("DRUID_TOKEN"))
    return DruidClient(config, RetryPolicy(max_attempts=3, initial_delay=0.2, deadline=30))  # a human is waiting
