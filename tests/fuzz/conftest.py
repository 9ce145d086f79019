"""Fuzz suite (marker ``fuzz``): prints the measured example count and time of every target at the end."""

from __future__ import annotations

import pytest

from .harness import COUNTS, PROFILE, RUNTIMES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not COUNTS:
        return
    terminalreporter.section(f"fuzz examples per target (profile {PROFILE})")
    for name in sorted(COUNTS):
        terminalreporter.write_line(f"{name:<22} {COUNTS[name]:>8,} examples  {RUNTIMES.get(name, 0.0):6.1f} s")
    terminalreporter.write_line(f"{'total':<22} {sum(COUNTS.values()):>8,} examples  {sum(RUNTIMES.values()):6.1f} s")
