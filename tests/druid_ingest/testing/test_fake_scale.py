"""The fake holds benchmark sizes: 10,000 tasks seed and answer like submitted ones, and a submit or a status read
costs the same with 10 tasks as with thousands (issue 20: P3 at 10,000 waits died while still submitting into the
fake). How fast the seed is belongs to benchmarks/p3_triggerer.py, which prints it; here a quadratic seed would
only hit the test's timeout."""

from __future__ import annotations

import datetime as dt
import statistics
import time

import pytest
import requests
from druid_ingest.testing import FakeDruid, index_parallel_spec

V1 = "/druid/indexer/v1"


def payload(i: int, datasources: int = 100) -> dict:
    """Task ``i``: one day of datasource ``i % datasources`` (no two share a lock), as P3 submits them."""
    day = dt.date(2000, 1, 1) + dt.timedelta(days=i // datasources)
    spec = index_parallel_spec(f"scale_{i % datasources}", intervals=[f"{day}/P1D"], task_id=f"scale_task_{i}")
    return spec


def _timed(call, n: int) -> float:
    """The median seconds of ``n`` calls of ``call(k)``."""
    took = []
    for k in range(n):
        start = time.perf_counter()
        call(k)
        took.append(time.perf_counter() - start)
    return statistics.median(took)


@pytest.mark.timeout(300)
def test_ten_thousand_tasks_seed_and_answer_like_submitted_ones():
    with FakeDruid(task_duration=3600, pending_delay=0.0, worker_capacity=100_000) as fake:
        start = time.perf_counter()
        ids = fake.seed_tasks(payload(i) for i in range(10_000))
        took = time.perf_counter() - start
        assert ids == [f"scale_task_{i}" for i in range(10_000)]
        print(f"seeding 10,000 tasks took {took:.1f} s")  # 2.5-4.5 s on 2 loaded cores; no timed assertion
        listed = requests.get(fake.url + V1 + "/tasks?max=0", timeout=60).json()
        assert len(listed) == 10_000 and {t["statusCode"] for t in listed} == {"RUNNING"}
        assert {t["runnerStatusCode"] for t in listed} == {"RUNNING"}
        # a lock per datasource and day, each task its own: the activeLocks answer names one task per filter
        locks = requests.post(fake.url + V1 + "/activeLocks", timeout=60,
                              json=[{"datasource": "scale_7", "intervals": ["2000-01-05/P1D"]}]).json()
        assert [lock["groupId"] for lock in locks["datasourceToLocks"]["scale_7"]] == ["scale_task_407"]


def test_seeded_tasks_behave_like_submitted_ones():
    with FakeDruid(task_duration=0.2, pending_delay=0.0, worker_capacity=2) as fake:
        fake.seed_tasks(payload(i, datasources=1) for i in range(3))
        states = {i: fake.task(f"scale_task_{i}").runner_state for i in range(3)}
        assert states == {0: "RUNNING", 1: "RUNNING", 2: "PENDING"}  # two slots
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and fake.task("scale_task_2").state == "RUNNING":
            time.sleep(0.05)
        assert [fake.task(f"scale_task_{i}").state for i in range(3)] == ["SUCCESS"] * 3


def test_seed_rejects_a_bad_payload_naming_it():
    with FakeDruid() as fake, pytest.raises(ValueError, match=r"payload 1 .*missing type id"):
        fake.seed_tasks([payload(0), {"spec": {}}])


@pytest.mark.parametrize("kind", ["submit", "status"])
def test_cost_per_request_does_not_grow_with_the_task_count(kind):
    """Median per-request time with 3,000 tasks held is within 4x of the one with none (it was ~7x for submits:
    every request rescanned and re-sorted all tasks)."""
    with FakeDruid(task_duration=3600, pending_delay=0.0, worker_capacity=100_000) as fake, \
            requests.Session() as http:
        def submit(k: int, base: int = 0) -> None:
            http.post(fake.url + V1 + "/task", json=payload(50_000 + base + k), timeout=30).raise_for_status()

        def status(k: int) -> None:
            http.get(f"{fake.url}{V1}/task/scale_task_{k}/status", timeout=30).raise_for_status()

        fake.seed_tasks(payload(i) for i in range(100))
        call = submit if kind == "submit" else status
        small = _timed(call, 100)
        fake.seed_tasks(payload(i) for i in range(100, 3_000))
        large = _timed((lambda k: submit(k, base=1_000)) if kind == "submit" else status, 100)
        assert large < 4 * small + 0.002, f"{kind}: {large * 1000:.2f} ms at 3,000 tasks vs {small * 1000:.2f} ms"
