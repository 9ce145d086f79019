"""Reading fields of a Druid JSON answer: the right type or nothing, never an exception.

A parser gets whatever the wire carried: Druid's own shape, another version's, or a proxy's. Fields that only
inform (durations, hosts, counts) are read leniently: a value of the wrong type, a boolean where a number belongs,
``NaN``/``Infinity`` (which Python's ``json`` accepts) all read as "absent". Fields a decision rests on are checked
by the parser itself, which raises ``DruidProtocolError`` naming the field and the value.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["as_dict", "as_float", "as_int", "as_str", "as_text"]


def as_int(value: Any) -> int | None:
    """An int from a JSON number (floats truncated); None for anything else, booleans and non-finite included."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return int(value)


def as_float(value: Any) -> float | None:
    """A finite float from a JSON number; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond float range
        return None
    return number if math.isfinite(number) else None


def as_str(value: Any) -> str | None:
    """The value when it is a string, else None."""
    return value if isinstance(value, str) else None


def as_text(value: Any) -> str | None:
    """A message: strings as they are, None/empty as None, anything else as its text (still worth showing)."""
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def as_dict(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}
