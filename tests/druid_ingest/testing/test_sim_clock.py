"""The simulated clock the fake and a client share: a sleep moves it, nothing else does."""

from __future__ import annotations

from druid_ingest.testing import FakeDruid, SimClock


def test_only_sleeps_move_it_and_a_negative_sleep_is_none() -> None:
    clock = SimClock(start=100.0)
    assert clock.now() == clock.now() == 100.0
    clock.sleep(2.5)
    clock.sleep(-10)
    assert clock.now() == 102.5


def test_the_fake_runs_on_it() -> None:
    clock = SimClock()
    with FakeDruid(clock=clock.now, task_duration=3600, pending_delay=0.0) as fake:
        task_id = fake.seed_tasks([{"type": "noop", "id": "sim_noop"}])[0]
        assert fake.task(task_id).runner_state == "RUNNING"
        clock.sleep(3600)
        assert fake.task(task_id).state == "SUCCESS"
