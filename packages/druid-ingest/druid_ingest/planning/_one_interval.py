"""The checks every one-interval kind of work starts with (compaction, kill, drop): a datasource and one interval.

Written once so the three kinds name the same problem with the same words; each adds its own rules after it.
"""

from __future__ import annotations

from datetime import datetime

from druid_ingest.errors import SpecProblem
from druid_ingest.planning.spec.intervals import parse_interval

__all__ = ["one_interval_problems"]


def one_interval_problems(
    datasource: object, interval: str, *, purpose: str, example: str = "2026-01-01/2026-02-01",
) -> tuple[list[SpecProblem], tuple[datetime, datetime] | None]:
    """The problems of ``datasource`` and ``interval``, and the interval's bounds when it parses.

    ``purpose`` completes "the datasource ..." in the message (``to compact``, ``to drop from``).
    """
    problems: list[SpecProblem] = []
    if not isinstance(datasource, str) or not datasource.strip():
        problems.append(SpecProblem("datasource", "is empty", value=datasource, valid=f"the datasource {purpose}"))
    try:
        return problems, parse_interval(interval)
    except ValueError as exc:
        problems.append(SpecProblem("interval", str(exc), value=interval, valid=f"one ISO interval, e.g. {example}"))
        return problems, None
