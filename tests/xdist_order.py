"""How the suite runs under pytest-xdist (``-n N``): the real-Druid tests stay serial on one worker while the
fake-Druid tests spread over the others, and the longest serial chains start first.

``--dist loadgroup`` with ``xdist_group`` marks would say the same, but xdist 3.8 groups by rewriting
``item._nodeid``, which pytest 9 no longer reads (the id lives in ``item._id``): the marks are silently ignored
(pytest-dev/pytest-xdist#1386, open; tests/test_xdist_order.py fails once a release honours them again).
So the grouping is a scheduler of our own, through xdist's ``pytest_xdist_make_scheduler`` hook: xdist's
load-scope scheduler whose scope is ``real_druid`` for every test under ``tests/e2e/`` and the test itself
otherwise. Used for ``--dist loadgroup``; every other ``--dist`` keeps xdist's own scheduler.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

__all__ = ["REAL_DRUID", "in_real_druid_suite", "make_scheduler", "order_items"]

#: the one scope of the real-Druid suite: its tests share one Druid and its task slots (some count them), so one
#: worker runs them in file order, as a serial run does
REAL_DRUID = "real_druid"


def in_real_druid_suite(nodeid_or_path: str) -> bool:
    return nodeid_or_path.replace(os.sep, "/").startswith("tests/e2e/") or "/tests/e2e/" in nodeid_or_path


def _rank(item: pytest.Item) -> int:
    if in_real_druid_suite(str(item.fspath)):
        return 0
    if item.get_closest_marker("chaos"):
        return 1
    return 2 if item.get_closest_marker("fuzz") else 3


def order_items(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker only: the real-Druid tests, then the chaos run (~2 min of one test), then the fuzz
    targets (CPU-bound, 10-20 s each), then the rest. Started last, any of them runs alone at the end while the
    other workers idle. A stable sort every worker does alike (xdist needs the same collection on each); a run
    without xdist keeps pytest's order."""
    if hasattr(config, "workerinput"):
        items.sort(key=_rank)


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class RealDruidSerial(LoadScopeScheduling):  # type: ignore[misc]
        """Scope ``real_druid`` for the e2e suite, one scope per test elsewhere; the biggest scope is handed out
        first (xdist's ``--loadscope-reorder``, on by default), so the serial real-Druid chain starts at once."""

        def _split_scope(self, nodeid: str) -> str:
            return REAL_DRUID if in_real_druid_suite(nodeid) else nodeid

    return RealDruidSerial(config, log)
