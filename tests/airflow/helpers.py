"""Small helpers shared by the Airflow-face suites (requests seen by the fake, specs, running a trigger)."""

from __future__ import annotations

import asyncio
from importlib import import_module
from typing import Any

from druid_ingest.testing import index_parallel_spec

from airflow_provider_druid_ingest.hooks.druid import DruidHook

TASK = "/druid/indexer/v1/task"
DAY = "2026-07-16T00:00:00Z/2026-07-17T00:00:00Z"
FAST: dict[str, float] = {"poll_interval": 0.05, "max_poll_interval": 0.2}


def posts(fake: Any) -> list:
    return [r for r in fake.requests if r.method == "POST" and r.path == TASK]


def shutdowns(fake: Any) -> list:
    return [r for r in fake.requests if r.method == "POST" and r.path.endswith("/shutdown")]


def spec(**kw: Any) -> dict:
    return index_parallel_spec("wiki", **kw)


def import_string(path: str) -> Any:
    module, _, name = path.rpartition(".")
    return getattr(import_module(module), name)


def run_trigger(trigger: Any) -> dict:
    """The one event of a trigger, run to completion on a fresh loop (what the triggerer does)."""
    return asyncio.run(first_event(trigger))


async def first_event(trigger: Any) -> dict:
    return (await trigger.run().__anext__()).payload


def submit(datasource: str = "wiki") -> str:
    with DruidHook().get_client() as client:
        return client.ensure_submitted(
            index_parallel_spec(datasource), datasource=datasource, intervals=["2024-01-01/2024-01-02"]
        ).task_id
