"""Prints the chaos tally at the end of the session (the test stores it), whether the test passed or not."""

from __future__ import annotations

import pytest

TABLES: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for table in TABLES:
        terminalreporter.section("chaos run")
        for line in table.splitlines():
            terminalreporter.write_line(line)
