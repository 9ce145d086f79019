"""How every fuzz target runs: one Hypothesis profile, a measured example count, and one rule.

The rule: whatever Druid (or a proxy in front of it) answers, the core raises only its own typed errors
(``core/errors.py``: ``DruidError`` and its subclasses, ``SpecValidationError``) and never hangs. Anything else
(``KeyError``, ``TypeError``, ``ValueError``, ``OverflowError``...) is a bug Hypothesis then shrinks.

Profiles (``DRUID_FUZZ_PROFILE``, default ``ci``): ``ci`` runs 10,000 examples per target, derandomized (the same
examples on every machine and run, so a CI failure reproduces locally), with a per-example deadline; ``quick``
runs 300 for editing the strategies; ``deep`` runs 100,000 with a random seed (pass ``--hypothesis-seed=N`` to
replay one). Each target counts the examples it really ran, and the session summary prints the counts.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from druid_ingest.errors import DruidError, SpecValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

__all__ = ["ALLOWED", "COUNTS", "PROFILE", "RUNTIMES", "fuzz", "guarded"]

#: the only exceptions a core parser may raise on any input
ALLOWED: tuple[type[BaseException], ...] = (DruidError, SpecValidationError)

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci", max_examples=10_000, derandomize=True, deadline=timedelta(seconds=2), database=None,
    suppress_health_check=_QUIET, print_blob=True,
)
settings.register_profile("quick", max_examples=300, deadline=timedelta(seconds=2), database=None,
                          suppress_health_check=_QUIET)
settings.register_profile("deep", max_examples=100_000, deadline=timedelta(seconds=2), database=None,
                          suppress_health_check=_QUIET, print_blob=True)
PROFILE = os.environ.get("DRUID_FUZZ_PROFILE", "ci")
if PROFILE not in ("ci", "quick", "deep"):
    raise RuntimeError(f"DRUID_FUZZ_PROFILE={PROFILE!r}: expected ci, quick or deep")

#: target name -> examples run (measured: incremented inside the test body)
COUNTS: Counter[str] = Counter()
#: target name -> (wall seconds, CPU seconds of this process) the target took
RUNTIMES: dict[str, tuple[float, float]] = {}


def guarded(call: Callable[[], Any]) -> Any:
    """Run ``call``; a typed error of the package is an accepted outcome (returned), anything else propagates."""
    try:
        return call()
    except ALLOWED as exc:
        str(exc)  # the message itself must render
        return exc


def fuzz(name: str, strategy: st.SearchStrategy[Any], check: Callable[[Any], None]) -> None:
    """Run ``check`` on the profile's number of examples of ``strategy``, counting them under ``name``, and fail
    when fewer ran than the profile asks for (an exhausted or over-filtered strategy is not a pass)."""
    import time

    profile = settings.get_profile(PROFILE)

    @settings(profile)
    @given(strategy)
    def target(value: Any) -> None:
        COUNTS[name] += 1
        check(value)

    wall, cpu = time.perf_counter(), time.process_time()
    target()
    RUNTIMES[name] = (time.perf_counter() - wall, time.process_time() - cpu)
    assert COUNTS[name] >= profile.max_examples, (
        f"fuzz target {name!r} ran {COUNTS[name]} examples, the {PROFILE!r} profile asks for {profile.max_examples}"
    )
