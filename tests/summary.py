"""Session summaries (fuzz example counts, the chaos tally, the spec corpus table) that survive pytest-xdist.

Under ``-n`` the workers run the tests and the controller prints the terminal summary, so a module-level list
filled by a test is never seen by the printer. Tests attach their rows to their report's ``user_properties``
instead (xdist ships those to the controller); ``tests/conftest.py`` installs the two hooks below, and the root
conftest is loaded by whichever process prints (the controller, or the only process without xdist).
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["FUZZ", "TEXT", "add_text", "pytest_runtest_logreport", "pytest_terminal_summary"]

#: user property: (profile, target, examples, wall s, CPU s) of one fuzz target
FUZZ = "summary:fuzz"
#: user property: (section title, lines) printed as its own section
TEXT = "summary:text"

_fuzz: dict[str, tuple[str, int, float, float]] = {}
_texts: list[tuple[str, list[str]]] = []


def add_text(item: pytest.Item, title: str, lines: list[str]) -> None:
    """Print ``lines`` under ``title`` at the end of the session (from whichever process runs ``item``)."""
    item.user_properties.append((TEXT, (title, list(lines))))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":  # setup/teardown reports carry the same list: count each entry once
        return
    for key, raw in report.user_properties:
        value: Any = raw
        if key == FUZZ:
            profile, name, count, wall, cpu = value
            _fuzz[name] = (profile, int(count), float(wall), float(cpu))
        elif key == TEXT:
            title, lines = value
            _texts.append((str(title), [str(line) for line in lines]))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for title, lines in _texts:
        terminalreporter.section(title)
        for line in lines:
            terminalreporter.write_line(line)
    if not _fuzz:
        return
    profiles = ", ".join(sorted({profile for profile, *_ in _fuzz.values()}))
    terminalreporter.section(f"fuzz examples per target (profile {profiles})")
    for name in sorted(_fuzz):
        _, count, wall, cpu = _fuzz[name]
        terminalreporter.write_line(f"{name:<22} {count:>8,} examples  {wall:6.1f} s wall  {cpu:6.1f} s CPU")
    total = sum(c for _, c, _, _ in _fuzz.values())
    walls, cpus = sum(w for *_, w, _ in _fuzz.values()), sum(c for *_, c in _fuzz.values())
    terminalreporter.write_line(f"{'total':<22} {total:>8,} examples  {walls:6.1f} s wall  {cpus:6.1f} s CPU")
