"""Caller choices that several layers validate: one definition each (cheap to import at DAG parse time)."""

from __future__ import annotations

from typing import Literal

__all__ = ["OnNever", "check_on_never"]

#: what a handoff wait does when load rules give the segments zero replicas (they will never be served)
OnNever = Literal["fail", "pass"]


def check_on_never(value: str) -> OnNever:
    """The one check of ``on_never``: ``"fail"`` (zero-replica segments fail the wait) or ``"pass"``."""
    if value == "fail":
        return "fail"
    if value == "pass":
        return "pass"
    raise ValueError(f"on_never must be 'fail' or 'pass', not {value!r}")
