"""Shared plumbing for spec validation: a problem collector and the Druid id rules.

Validation reports every problem at once (a user fixing one 400 at a time against a live Overlord is what this
package exists to avoid), so checks append to a collector instead of raising.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from druid_ingest.errors import SpecProblem
from druid_ingest.planning.spec.jackson import Invalid, read_bool, read_int


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class Collector:
    """Accumulates :class:`SpecProblem` s; helpers return the checked value (or None) to chain checks."""

    def __init__(self) -> None:
        self.problems: list[SpecProblem] = []

    def add(self, path: str, message: str, *, value: Any = None, valid: str | None = None) -> None:
        self.problems.append(SpecProblem(path, message, value=value, valid=valid))

    def obj(self, parent: dict[str, Any], key: str, path: str, *, required: bool = True) -> dict[str, Any] | None:
        """``parent[key]`` if it is a JSON object; a problem if missing (when required) or not an object."""
        if key not in parent:
            if required:
                self.add(path, "is required but missing", valid="a JSON object")
            return None
        value = parent[key]
        if not isinstance(value, dict):
            self.add(path, f"must be an object, not {json_type(value)}", value=value, valid="a JSON object")
            return None
        return value

    def boolean(self, parent: dict[str, Any], key: str, path: str) -> bool | None:
        """``parent[key]`` read as Druid's Jackson reads a boolean (``"true"`` is true, null is absent);
        a problem if Jackson would refuse it (``"1"``, ``"yes"``, an object)."""
        value = read_bool(parent.get(key))
        if isinstance(value, Invalid):
            got = parent[key]
            self.add(path, f"must be a boolean, not {json_type(got)}", value=got,
                     valid='true or false (Druid also reads the strings "true"/"false")')
            return None
        return value

    def positive_int(self, parent: dict[str, Any], key: str, path: str) -> int | None:
        """``parent[key]`` read as Druid's Jackson reads an int (``"4"`` and ``4.0`` are 4, null is absent);
        a problem unless it is >= 1."""
        value = read_int(parent.get(key))
        if value is None:
            return None
        if isinstance(value, Invalid) or value < 1:
            self.add(path, "must be a positive integer", value=parent[key], valid="an integer >= 1")
            return None
        return value

    def unknown_keys(self, obj: dict[str, Any], path: str, known: Iterable[str], *, ignore: Iterable[str] = ()) -> None:
        """Flag keys Druid would silently ignore, suggesting the closest known one."""
        known_list = sorted(known)
        skip = set(ignore)
        for key in obj:
            if key in known_list or key in skip:
                continue
            key_path = f"{path}.{key}" if path else str(key)
            close = difflib.get_close_matches(str(key), known_list, n=1, cutoff=0.6)
            if not close:
                close = [k for k in known_list if k.lower() == str(key).lower()]
            hint = f"; did you mean {close[0]!r}?" if close else " (Druid silently ignores it)"
            self.add(key_path, f"unknown key{hint}", valid="known keys here: " + ", ".join(known_list))
