"""Fuzz suite (marker ``fuzz``): each target's measured example count and time go on its test's report, and the
session summary (``tests/summary.py``) prints them, whichever process (or xdist worker) ran the target."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from tests.summary import FUZZ

from .harness import COUNTS, PROFILE, RUNTIMES


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    before = dict(COUNTS)
    try:
        return (yield)
    finally:  # a failed target is reported too (its time then is unknown: 0)
        for name, count in COUNTS.items():
            if count != before.get(name):
                wall, cpu = RUNTIMES.get(name, (0.0, 0.0))
                item.user_properties.append((FUZZ, (PROFILE, name, count, wall, cpu)))
