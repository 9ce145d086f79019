"""Many tasks submitted to the fake Druid over HTTP, one day each: what the herd and shared-sleep tests wait on."""

from __future__ import annotations

import requests
from druid_ingest.testing import FakeDruid, index_parallel_spec


def submit(fake: FakeDruid, n: int, datasources: int, first: int = 0, auth: tuple[str, str] | None = None) -> list[str]:
    """``n`` tasks over ``datasources`` datasources, one day each (no two share a lock)."""
    ids = []
    with requests.Session() as session:
        session.auth = auth
        for i in range(first, first + n):
            day = f"2021-{1 + (i // 28) % 12:02d}-{1 + i % 28:02d}"
            spec = index_parallel_spec(f"herd_{i % datasources}", intervals=[f"{day}T00:00:00Z/P1D"],
                                       task_id=f"herd_task_{i}")
            session.post(f"{fake.url}/druid/indexer/v1/task", json=spec, timeout=30).raise_for_status()
            ids.append(f"herd_task_{i}")
    return ids
