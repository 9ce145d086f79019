"""Deprecated alias: what DAG files imported from ``core.spec`` (``load_template``) is ``druid_ingest.planning``'s."""

from __future__ import annotations

import warnings
from typing import Any

import druid_ingest.planning as _spec

__all__ = list(_spec.__all__)


def __getattr__(name: str) -> Any:
    if name in _spec.__all__:
        warnings.warn(
            f"airflow_provider_druid_ingest.core.spec is deprecated: import {name} from druid_ingest.planning",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_spec, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
