"""Warnings for the legacy partitioning keys of tuningConfig, only where Druid ignores them.

Druid's ``IndexTuningConfig`` still reads ``maxRowsPerSegment``, ``maxTotalRows``, ``numShards``,
``partitionDimensions`` and ``targetPartitionSize`` (its ``getPartitionsSpec``): without a partitionsSpec it builds
one from them (hashed under perfect rollup, dynamic otherwise) with the same behaviour, so a "deprecated" warning
there is noise (15 of Druid's own tutorial and test specs use them). The behaviour changes only where a key is
dropped: an explicit partitionsSpec makes all of them ignored, and each rollup mode ignores the keys the other
mode's partitionsSpec has. ``null`` (what Druid writes into the specs it returns) never warns.
"""

from __future__ import annotations

from typing import Any

from druid_ingest.errors import SpecProblem
from druid_ingest.planning.spec.jackson import truthy

__all__ = ["legacy_tuning_warnings"]

#: legacy key -> where it lives now
_MOVED_TO = {
    "maxRowsPerSegment": "partitionsSpec.maxRowsPerSegment (dynamic) or targetRowsPerSegment (hashed/range)",
    "targetPartitionSize": "partitionsSpec.targetRowsPerSegment",
    "maxTotalRows": "partitionsSpec {type: dynamic, maxTotalRows}",
    "numShards": "partitionsSpec {type: hashed, numShards}",
    "partitionDimensions": "partitionsSpec {type: hashed, partitionDimensions}",
}
_HASHED_ONLY = ("numShards", "partitionDimensions")
_DYNAMIC_ONLY = ("maxTotalRows",)


def _given(value: Any) -> bool:
    return value is not None and value != []


def legacy_tuning_warnings(tuning: dict[str, Any]) -> list[SpecProblem]:
    """One warning per legacy key Druid will ignore, saying why and where the setting belongs."""
    path = "spec.tuningConfig"
    explicit = tuning.get("partitionsSpec") is not None
    rollup = truthy(tuning.get("forceGuaranteedRollup"))
    out: list[SpecProblem] = []
    for key, moved in sorted(_MOVED_TO.items()):
        if not _given(tuning.get(key)):
            continue
        if explicit:
            why = "is ignored: an explicit partitionsSpec is set, and Druid then reads only that"
        elif rollup and key in _DYNAMIC_ONLY:
            why = ("is ignored: with forceGuaranteedRollup Druid builds a hashed partitionsSpec, which has no "
                   f"{key}")
        elif not rollup and key in _HASHED_ONLY:
            why = ("is ignored: without forceGuaranteedRollup Druid builds a dynamic partitionsSpec, which has no "
                   f"{key}")
        else:
            continue  # Druid maps it onto the default partitionsSpec: same behaviour, nothing to say
        out.append(SpecProblem(f"{path}.{key}", why, value=tuning[key], valid=f"set it as {moved}"))
    return out
