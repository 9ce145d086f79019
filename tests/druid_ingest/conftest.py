"""One behavioural suite, two clients: every test using ``make_client`` runs against sync and async."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

FAST_RETRY = RetryPolicy(max_attempts=5, initial_delay=0.02, max_delay=0.1, deadline=20)
FAST_POLL = PollSchedule(initial=0.05, max_delay=0.2, multiplier=1.5)


class Runner:
    """Calls a client method and returns its result, whichever client it is."""

    def __init__(self, kind: str, config: ClusterConfig, retry: RetryPolicy) -> None:
        self.kind = kind
        self.config = config
        if kind == "sync":
            self.client: Any = DruidClient(config, retry)
            self.loop = None
        else:
            self.loop = asyncio.new_event_loop()
            self.client = AsyncDruidClient(config, retry)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.client, name)

        def invoke(*args: Any, **kwargs: Any) -> Any:
            if name.startswith("wait_for_"):
                kwargs.setdefault("schedule", FAST_POLL)
            result = method(*args, **kwargs)
            return self.loop.run_until_complete(result) if self.loop else result

        return invoke

    def close(self) -> None:
        if self.loop is None:
            self.client.close()
        else:
            self.loop.run_until_complete(self.client.close())
            self.loop.close()


@pytest.fixture(params=["sync", "async"])
def make_client(request: pytest.FixtureRequest) -> Iterator[Callable[..., Runner]]:
    made: list[Runner] = []

    def make(url: str | None = None, retry: RetryPolicy = FAST_RETRY, **config: Any) -> Runner:
        if url is None:
            url = request.getfixturevalue("fake_druid").url
        config.setdefault("read_timeout", 1.0)
        config.setdefault("connect_timeout", 2.0)
        runner = Runner(request.param, ClusterConfig(url=url, **config), retry)
        made.append(runner)
        return runner

    yield make
    for runner in made:
        runner.close()
