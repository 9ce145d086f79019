"""Dagster integration tests. They need dagster (dagster-druid-ingest's dependency) and FAIL without it, never
skip: a test command that silently drops a whole face would report green for code it never ran.
``scripts/bootstrap.sh`` installs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

try:
    import dagster as dg
except ImportError as exc:  # pragma: no cover - exercised by test_isolation.py in a subprocess
    raise ImportError(
        "tests/dagster_druid_ingest needs dagster, which is not installed: run `bash scripts/bootstrap.sh` "
        "(it installs packages/dagster-druid-ingest editable) or `pip install -e packages/dagster-druid-ingest`"
    ) from exc

from dagster_druid_ingest import DruidResource
from druid_ingest.testing import FakeDruid

from tests.druid_ingest.sample_specs import day_spec

DAY = "2026-11-03"
DAY_INTERVAL = "2026-11-03T00:00:00Z/2026-11-04T00:00:00Z"
LOCATION = "/data/events/{partition_key}"


def fast_resource(url: str, **overrides: Any) -> DruidResource:
    """A resource that polls the fake quickly and gives up on it quickly."""
    settings: dict[str, Any] = dict(url=url, poll_interval=0.05, max_poll_interval=0.2, read_timeout=2.0,
                                    connect_timeout=2.0, request_initial_delay=0.02, request_max_delay=0.1,
                                    request_deadline=20.0)
    settings.update(overrides)
    return DruidResource(**settings)


@pytest.fixture()
def druid(fake_druid: FakeDruid) -> DruidResource:
    return fast_resource(fake_druid.url)


@pytest.fixture()
def spec() -> Callable[..., dict[str, Any]]:
    """The sample events spec (dynamic partitioning: Druid writes reports for its failures), with a placeholder
    interval and input folder that each partition replaces."""

    def make(tuning: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        out = day_spec("2026-01-01", **{"dynamic": True, **kw})
        out["spec"]["tuningConfig"].update(tuning or {})
        return out

    return make


def materialize(targets: list[Any], druid: DruidResource, partition: str = DAY,
                **kwargs: Any) -> dg.ExecuteInProcessResult:
    """One partition through ``dagster.materialize`` (in process, ephemeral instance), failures returned."""
    return dg.materialize(targets, resources={"druid": druid}, partition_key=partition, raise_on_error=False,
                          **kwargs)
