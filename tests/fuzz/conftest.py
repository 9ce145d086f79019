"""Fuzz suite (marker ``fuzz``): prints the measured example count and time of every target at the end."""

from __future__ import annotations

import pytest

from .harness import COUNTS, PROFILE, RUNTIMES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not COUNTS:
        return
    terminalreporter.section(f"fuzz examples per target (profile {PROFILE})")
    for name in sorted(COUNTS):
        wall, cpu = RUNTIMES.get(name, (0.0, 0.0))
        terminalreporter.write_line(f"{name:<22} {COUNTS[name]:>8,} examples  {wall:6.1f} s wall  {cpu:6.1f} s CPU")
    walls, cpus = sum(w for w, _ in RUNTIMES.values()), sum(c for _, c in RUNTIMES.values())
    terminalreporter.write_line(f"{'total':<22} {sum(COUNTS.values()):>8,} examples  {walls:6.1f} s wall  "
                                f"{cpus:6.1f} s CPU")
