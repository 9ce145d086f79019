"""Legacy tuningConfig partitioning keys warn only where Druid ignores them, and say why (issue 18)."""

from __future__ import annotations

from typing import Any

import pytest
from druid_ingest.planning.spec import find_warnings

from tests.druid_ingest.planning.spec.test_validate import DELETE, mutated

TC = "spec.tuningConfig"
LEGACY = ("maxRowsPerSegment", "maxTotalRows", "numShards", "partitionDimensions", "targetPartitionSize")


def legacy_warnings(spec: dict[str, Any]) -> dict[str, str]:
    return {w.path.rsplit(".", 1)[1]: w.message for w in find_warnings(spec) if w.path.rsplit(".", 1)[1] in LEGACY}


DYNAMIC = ((f"{TC}.forceGuaranteedRollup", False), (f"{TC}.partitionsSpec", DELETE))
HASHED = ((f"{TC}.forceGuaranteedRollup", True), (f"{TC}.partitionsSpec", DELETE))


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # Druid maps these onto the default partitionsSpec with the same behaviour: no warning
        ((*DYNAMIC, (f"{TC}.maxRowsPerSegment", 5000000), (f"{TC}.maxTotalRows", 20000000)), {}),
        ((*HASHED, (f"{TC}.maxRowsPerSegment", 5000000), (f"{TC}.numShards", 4)), {}),
        ((*HASHED, (f"{TC}.partitionDimensions", ["country"])), {}),
        # null is how Druid writes "unset" into the specs it returns: never a warning
        (((f"{TC}.numShards", None), (f"{TC}.maxTotalRows", None), (f"{TC}.partitionDimensions", [])), {}),
        # an explicit partitionsSpec: Druid reads only it, every legacy key is dropped
        (((f"{TC}.maxRowsPerSegment", 5000000),), {"maxRowsPerSegment": "explicit partitionsSpec"}),
        (((f"{TC}.numShards", 3), (f"{TC}.targetPartitionSize", 10)),
         {"numShards": "explicit partitionsSpec", "targetPartitionSize": "explicit partitionsSpec"}),
        # each rollup mode drops the keys of the other mode's partitionsSpec
        ((*DYNAMIC, (f"{TC}.numShards", 3)), {"numShards": "dynamic partitionsSpec"}),
        ((*HASHED, (f"{TC}.maxTotalRows", 100)), {"maxTotalRows": "hashed partitionsSpec"}),
        ((*HASHED, (f"{TC}.forceGuaranteedRollup", "true"), (f"{TC}.maxTotalRows", 100)),
         {"maxTotalRows": "hashed partitionsSpec"}),
    ],
    ids=["dynamic-mapped", "hashed-mapped", "hashed-dims", "nulls", "explicit-maxRows", "explicit-two",
         "dynamic-drops-numShards", "hashed-drops-maxTotalRows", "string-true-rollup"],
)
def test_legacy_keys_warn_only_when_ignored(changes: tuple[tuple[str, Any], ...], expected: dict[str, str]) -> None:
    found = legacy_warnings(mutated(*changes))
    assert set(found) == set(expected)
    for key, words in expected.items():
        assert "is ignored" in found[key] and words in found[key], found[key]


def test_maxNumSubTasks_alone_does_not_warn() -> None:
    # Druid reads it as maxNumConcurrentSubTasks: same behaviour (both together stay a problem)
    spec = mutated((f"{TC}.maxNumConcurrentSubTasks", DELETE), (f"{TC}.maxNumSubTasks", 4))
    assert [w for w in find_warnings(spec) if "maxNumSubTasks" in w.path] == []
