"""The lazy public face every room of the core uses: a name in ``__all__`` imports its private module on first use.

One helper instead of a ``__getattr__`` copied in each ``__init__``: importing a room stays cheap (DAG files and
Dagster code locations import it at parse time) and every room answers a missing name the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_face"]


def lazy_face(package: str, where: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``where`` maps a public name to its module, relative to the package.

    The resolved value is stored in ``namespace`` (the package's ``globals()``), so the lookup runs once per name.
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
