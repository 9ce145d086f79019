"""Is the task JSON at all? Values a Python dict may hold but a Druid task cannot carry.

The spec is sent (and hashed for its task id) as UTF-8 JSON: ``NaN``/``Infinity`` are not JSON, a lone surrogate
(``"\\ud800"``) cannot be encoded as UTF-8, and sets, bytes, datetimes or non-string keys have no JSON form. Each
is reported with its path, like every other spec problem, instead of failing later inside ``json.dumps``.
"""

from __future__ import annotations

import math
from typing import Any

from druid_ingest.planning.spec._collect import Collector

__all__ = ["check_json_values"]

_MAX_REPORTED = 20


def _bad_text(text: str) -> str | None:
    for pos, char in enumerate(text):
        if 0xD800 <= ord(char) <= 0xDFFF:
            return f"holds a lone surrogate U+{ord(char):04X} at position {pos}, which UTF-8 cannot encode"
    return None


def check_json_values(spec: Any, c: Collector) -> None:
    """Add a problem for every value of ``spec`` that has no JSON/UTF-8 form (at most 20 of them)."""
    found = 0
    stack: list[tuple[str, Any]] = [("", spec)]
    while stack and found < _MAX_REPORTED:
        path, value = stack.pop()
        here = path or "$"
        problem = valid = None
        if isinstance(value, bool) or value is None or isinstance(value, int):
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                problem, valid = f"is {value!r}, which is not a JSON number", "a finite number"
        elif isinstance(value, str):
            problem, valid = _bad_text(value), "text without lone surrogates"
        elif isinstance(value, list | tuple):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                if not isinstance(key, str):
                    c.add(f"{here}", f"has a key {key!r} of type {type(key).__name__}; JSON keys are strings",
                          valid="string keys")
                    found += 1
                elif _bad_text(key):
                    c.add(f"{here}", f"has a key that {_bad_text(key)}", valid="text without lone surrogates")
                    found += 1
                else:
                    stack.append((f"{path}.{key}" if path else key, item))
        else:
            problem, valid = f"is a {type(value).__name__}, which has no JSON form", "JSON values only"
        if problem is not None:
            c.add(here, problem, valid=valid)
            found += 1
