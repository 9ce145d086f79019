"""The chaos run as a test (marker ``chaos``): 220 ingestions under random faults, a fixed seed by default.

``DRUID_CHAOS_SEED`` / ``DRUID_CHAOS_N`` change the seed and size; ``python -m tests.chaos.run`` is the same run
as a script. The must-be-zero rows are the promises: no duplicate Druid task for an interval, no lost interval,
nothing green before it is queryable, no retry of a fatal answer (by the HTTP retry policy or by Airflow), no
orphaned Druid task, no exception outside Airflow's, and the password in no log, exception, XCom, serialized
trigger or event.
"""

from __future__ import annotations

import os

import pytest

from tests.summary import add_text

from .run import chaos_run

pytestmark = pytest.mark.chaos


@pytest.mark.timeout(900)  # ~1 min on an idle 2-core machine; minutes when it is shared
def test_chaos_run_keeps_every_promise(request: pytest.FixtureRequest) -> None:
    seed = int(os.environ.get("DRUID_CHAOS_SEED", "20261201"))
    n = int(os.environ.get("DRUID_CHAOS_N", "220"))
    result = chaos_run(seed, n)
    add_text(request.node, "chaos run", result.table().splitlines())
    rows = result.rows
    broken = {name: rows[name] for name in result.MUST_BE_ZERO if rows[name]}
    assert not broken, f"seed {seed}: {broken}\n{result.table()}\n{result.details()}"
    assert rows["capture self-check (canaries found, of 3)"] == 3, "the secret check would not see a leak"
    assert rows["operator log lines captured"] > n, "operator logs did not reach the capture"
    # the run must have exercised what it claims to: faults fired, fatal ones among them, Druid failures
    assert rows["ingestions"] == n >= 200
    assert rows["faults fired"] >= n / 4 and rows["  fatal faults fired"] >= 5, result.table()
    assert rows["failed fast (fatal, no retry)"] >= 5 and rows["Druid tasks FAILED on purpose"] >= 5, result.table()
    assert rows["completed (green, queryable)"] >= n * 0.7, result.table()
