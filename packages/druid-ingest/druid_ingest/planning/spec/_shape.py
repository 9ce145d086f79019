"""Accept both the task shape and a bare ingestion spec, because templates come in both forms."""

from __future__ import annotations

from typing import Any

from druid_ingest.planning.spec.known_keys import TASK_TYPES


def is_bare_spec(spec: Any) -> bool:
    """True for ``{"dataSchema": ..., "ioConfig": ..., ...}`` without the task wrapper."""
    return isinstance(spec, dict) and "spec" not in spec and ("dataSchema" in spec or "ioConfig" in spec)


def as_task_shape(spec: Any) -> Any:
    """Wrap a bare ingestion spec as ``{"type": ..., "spec": bare}``; anything else is returned unchanged.

    The type is taken from ``ioConfig.type`` when that is a native batch type, else index_parallel.
    Does not copy: callers that mutate copy first.
    """
    if not is_bare_spec(spec):
        return spec
    io_type = spec.get("ioConfig", {}).get("type") if isinstance(spec.get("ioConfig"), dict) else None
    return {"type": io_type if io_type in TASK_TYPES else "index_parallel", "spec": spec}
