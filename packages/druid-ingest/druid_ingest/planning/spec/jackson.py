"""Read scalar values the way Druid's Jackson (2.x, default ObjectMapper coercion) reads them.

Druid binds a task spec with Jackson and keeps its default scalar coercion, so a spec Druid accepts may say
``"forceGuaranteedRollup": "true"`` or ``"maxNumConcurrentSubTasks": "4"``. Pre-flight must read such values as
Druid does, or it refuses specs Druid runs (issue 18). The rules (druid-contract §jackson-reading):

- ``null`` is the same as absent: Druid's config constructors take boxed ``@Nullable`` arguments and apply the
  default when they get null (and Jackson gives a primitive its zero value for null).
- strings are trimmed first; for the boxed (``Boolean``/``Integer``/``Long``) fields Druid's constructors take,
  an empty string and the text ``"null"`` read as null.
- booleans: JSON true/false; the strings ``"true"``/``"false"`` (also ``True``/``TRUE`` ...); JSON integers
  (0 is false, any other is true: Jackson's legacy int-to-boolean coercion). ``"1"``/``"yes"`` are refused
  ("only true or false recognized").
- integers: JSON integers; JSON floats (truncated: ``ACCEPT_FLOAT_AS_INT`` is on by default); strings holding
  a decimal integer (``"4"``, parsed with ``parseInt``/``parseLong``, so ``"4.0"`` is refused). A JSON boolean is
  not an integer.

Druid's ``DefaultObjectMapper`` only turns off ``FAIL_ON_UNKNOWN_PROPERTIES`` and auto-detection; it leaves
these coercion defaults as Jackson ships them.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["INVALID", "Invalid", "read_bool", "read_int", "truthy"]

_TRUE: Final = frozenset({"true", "True", "TRUE"})
_FALSE: Final = frozenset({"false", "False", "FALSE"})
_INT_TEXT: Final = re.compile(r"[+-]?[0-9]+")


class Invalid:
    """A value Jackson would refuse for the target type (a singleton: :data:`INVALID`)."""

    _instance: Invalid | None = None

    def __new__(cls) -> Invalid:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "INVALID"


INVALID: Final = Invalid()


def _text(value: str) -> str | None:
    """Java's ``trim`` (chars <= U+0020), with "" and "null" as None (a boxed field reads them as null)."""
    text = value.strip("".join(chr(c) for c in range(33)))
    return None if text in ("", "null") else text


def read_bool(value: Any) -> bool | Invalid | None:
    """The boolean Druid reads from ``value``: None when absent/null, :data:`INVALID` when Jackson refuses it."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        text = _text(value)
        if text is None:
            return None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return INVALID


def read_int(value: Any) -> int | Invalid | None:
    """The integer Druid reads from ``value``: None when absent/null, :data:`INVALID` when Jackson refuses it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return INVALID
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else INVALID
    if isinstance(value, str):
        text = _text(value)
        if text is None:
            return None
        if _INT_TEXT.fullmatch(text):
            return int(text)
    return INVALID


def truthy(value: Any) -> bool:
    """True only when Druid reads ``value`` as boolean true (absent, null and invalid read as false)."""
    return read_bool(value) is True
