"""Deprecated alias of the core library ``druid_ingest`` (its own distribution, ``druid-ingest``, since 0.1.0).

Kept so that code written against ``airflow_provider_druid_ingest.core`` (``from ...core import DruidClient``,
``from ...core.spec import load_template`` in DAG files) keeps working through one release, with a
DeprecationWarning that names the new import. Only the old top-level names and ``core.spec``'s are kept: the
deep module paths were never public.
"""

from __future__ import annotations

import warnings
from typing import Any

import druid_ingest

__all__ = list(druid_ingest.__all__)


def __getattr__(name: str) -> Any:
    if name in druid_ingest.__all__:
        warnings.warn(
            f"airflow_provider_druid_ingest.core is deprecated: import {name} from druid_ingest",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(druid_ingest, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
