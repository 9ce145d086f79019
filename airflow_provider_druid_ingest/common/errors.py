"""Airflow exceptions that are also the core's error classes, so Airflow 3.3's ``RetryRule`` can key on those.

Airflow's ``RetryRule.matches`` is ``isinstance(raised, rule_classes)`` on the exception the task raised; it does not
walk ``__cause__`` (``airflow.sdk.definitions.retry_policy``). The task runner, for its part, decides by the
Airflow class: an ``AirflowFailException`` (or ``AirflowSensorTimeout``) fails at once and never reaches a policy,
an ``AirflowException`` does. So the exception carries both in its MRO: the Airflow class first (it decides whether a
policy is asked at all), then the core classes the failure stands for (which decide what a rule on them says).
A ``raise ... from`` keeps the original error as ``__cause__`` where there is one (a worker-side error).

The classes are made on first use, one per (Airflow class, core classes), and kept in this module under their
name (``AirflowException[DruidRetriesExhaustedError+DruidTimeoutError]``), so pickle and Airflow's
``serialize()`` (``module.name`` plus the message) find them again; a process that never made one (it unpickles an
error raised elsewhere) gets it from the name through the module's ``__getattr__``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Any

from airflow.sdk import exceptions as airflow_exceptions
from airflow.sdk.exceptions import AirflowException
from druid_ingest.wire import taxonomy_class

__all__ = ["druid_airflow_error", "druid_error_class"]

_MODULE = sys.modules[__name__]


def _init(self: BaseException, text: str = "", /, **attrs: Any) -> None:
    """The message only (the core classes' own ``__init__`` wants fields a trigger event does not carry)."""
    Exception.__init__(self, text)
    self.__dict__.update(attrs)


def _minimal(classes: Iterable[type[BaseException]]) -> tuple[type[BaseException], ...]:
    """Without duplicates and without any class another one already derives from (a consistent MRO)."""
    unique = tuple(dict.fromkeys(classes))
    return tuple(c for c in unique if not any(o is not c and issubclass(o, c) for o in unique))


def druid_error_class(kind: type[AirflowException], core: Iterable[type[BaseException]]) -> type[AirflowException]:
    """The class that is ``kind`` and every class in ``core`` (``kind`` itself when ``core`` is empty)."""
    bases = _minimal(core)
    if not bases:
        return kind
    name = f"{kind.__name__}[{'+'.join(b.__name__ for b in bases)}]"
    existing = vars(_MODULE).get(name)  # not getattr: that would ask __getattr__ below to make it
    if isinstance(existing, type) and existing.__bases__ == (kind, *bases):
        return existing
    namespace = {
        "__init__": _init,
        "__module__": __name__,
        "__qualname__": name,
        "__doc__": f"{kind.__name__} raised for the core's {', '.join(b.__name__ for b in bases)}.",
        "retryable": getattr(bases[0], "retryable", False),  # the first core class's, not a later base's
    }
    cls = type(name, (kind, *bases), namespace)
    setattr(_MODULE, name, cls)
    return cls


def druid_airflow_error(kind: type[AirflowException], message: str, core: Iterable[type[BaseException]] = (),
                        attrs: dict[str, Any] | None = None) -> AirflowException:
    """A ``kind`` with ``message`` that is also each of ``core`` (and has the core error's ``attrs``: ``status``,
    ``url``, ``task_id`` ...)."""
    cls = druid_error_class(kind, core)
    if cls is kind:
        return kind(message)
    return cls(message, **{"message": message, **(attrs or {})})


_NAME = re.compile(r"(\w+)\[(\w+(?:\+\w+)*)\]")


def __getattr__(name: str) -> type[AirflowException]:
    """``AirflowException[DruidTimeoutError]`` made from its name, for pickle and ``import_string`` in a process
    that did not make it yet; anything else is the usual AttributeError."""
    found = _NAME.fullmatch(name)
    kind = getattr(airflow_exceptions, found.group(1), None) if found else None
    core = [taxonomy_class(n) for n in found.group(2).split("+")] if found else []
    if found is None or not (isinstance(kind, type) and issubclass(kind, AirflowException)) or None in core:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    cls = druid_error_class(kind, [c for c in core if c is not None])
    if cls.__name__ != name:  # not a name this module would make (an order or a base it drops)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return cls
