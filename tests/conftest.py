"""Root conftest of the suite: the session summaries of ``tests/summary.py`` (fuzz counts, chaos tally, spec
corpus table), here so that the process printing the terminal summary loads them, under pytest-xdist too."""

from tests.summary import pytest_runtest_logreport, pytest_terminal_summary

__all__ = ["pytest_runtest_logreport", "pytest_terminal_summary"]
