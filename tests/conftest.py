"""Root conftest of the suite, loaded by every process (under pytest-xdist by the controller too): the session
summaries of ``tests/summary.py`` (fuzz counts, chaos tally, spec corpus table) and the xdist scheduling of
``tests/xdist_order.py`` (real-Druid tests serial on one worker, long chains first)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.summary import pytest_runtest_logreport, pytest_terminal_summary
from tests.xdist_order import make_scheduler, order_items

__all__ = ["pytest_collection_modifyitems", "pytest_runtest_logreport", "pytest_terminal_summary",
           "pytest_xdist_make_scheduler"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    order_items(config, items)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown (and unused) without it
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return make_scheduler(config, log)
