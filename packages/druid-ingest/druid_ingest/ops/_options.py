"""Caller choices that several layers validate: one definition each (cheap to import at DAG parse time)."""

from __future__ import annotations

from typing import Literal

__all__ = ["DEFAULT_HANDOFF_TIMEOUT", "DEFAULT_TASK_TIMEOUT", "OnNever", "check_on_never"]

#: seconds a wait gives the Druid task to end (every face's default: long batch ingestions run for hours)
DEFAULT_TASK_TIMEOUT = 12 * 3600.0
#: seconds a wait gives the segments to become queryable, counted from the task's end
DEFAULT_HANDOFF_TIMEOUT = 3600.0

#: what a handoff wait does when load rules give the segments zero replicas (they will never be served)
OnNever = Literal["fail", "pass"]


def check_on_never(value: str) -> OnNever:
    """The one check of ``on_never``: ``"fail"`` (zero-replica segments fail the wait) or ``"pass"``."""
    if value == "fail":
        return "fail"
    if value == "pass":
        return "pass"
    raise ValueError(f"on_never must be 'fail' or 'pass', not {value!r}")
