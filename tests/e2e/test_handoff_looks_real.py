"""The core's handoff looks for a handoff wait started on its own (what the Airflow handoff trigger and the Dagster
steps run), decided by a real Druid 33: the target's end from Druid's createdTime + duration is on our clock, the
looks are placed from it and learn each delay; and the watch's first-look rule (``from_now``) on the same data."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest
import requests
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._history import WaitMemory
from druid_ingest.ops.gate.looks import HandoffLooks
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from .test_real_druid import POLL, build

pytestmark = pytest.mark.timeout(900)

DAYS = ("2026-11-02", "2026-11-03", "2026-11-04")
WINDOW = "2026-11-01/2026-12-01"


class Looks(requests.Session):
    """Notes when each gate look (an ids-only served listing) left."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        if method == "GET" and "/intervals/" in url:
            self.at.append(time.time())
        return super().request(method, url, *args, **kwargs)


def test_a_handoff_wait_alone_looks_from_druids_end_and_learns(druid_url: str, spec_template, events_dir) -> None:
    ds = f"h41core_looks_{time.time_ns()}"
    looks = Looks()
    retry = RetryPolicy(max_attempts=8, initial_delay=0.5, max_delay=5, deadline=120)
    with DruidClient(ClusterConfig(url=druid_url, read_timeout=120), retry, looks) as client:
        client.wait_memory = WaitMemory(client.wait_memory.cluster)  # learns alone
        key = (client.wait_memory.cluster, ds)
        for n, day in enumerate(DAYS):
            task_id = client.ensure_submitted(build(spec_template, events_dir, day, ds)).task_id
            assert client.wait_for_task(task_id, timeout=300, schedule=POLL).state == "SUCCESS"
            target = client.handoff_target(task_id, ds, [])
            assert target.ended_at is not None and -1.0 <= time.time() - target.ended_at <= 30.0
            plan = HandoffLooks.plan(client.wait_memory.handoffs.recent(key), POLL)
            looks.at.clear()
            started = time.time()
            assert client.wait_for_handoff(target, timeout=300, schedule=POLL).state == "loaded"
            seen = client.wait_memory.handoffs.recent(key)
            print(f"handoff {n}: delays {seen}, looks {[round(t - target.ended_at, 2) for t in looks.at]}")
            planned = min(started, target.ended_at) + plan.first  # never before the planned first look
            assert looks.at and looks.at[0] >= planned - 0.05
            window = [t for t in looks.at if t - target.ended_at < plan.until - plan.step / 4]
            assert all(g <= 1.6 * plan.step for g in (b - a for a, b in itertools.pairwise(window)))
            assert len(seen) in (n, n + 1)  # each delay learned, but one seen at the wait's first look at once
        assert len(client.wait_memory.handoffs.recent(key)) >= 2

        empty = client.served_changes(ds, WINDOW, None, from_now=True)
        assert empty.changes == () and empty.cursor == client.served_changes(ds, WINDOW).cursor
        assert len(client.served_changes(ds, WINDOW).changes) >= 1  # without from_now: what is served
