"""The chaos run: many ingestions through the Airflow classes against the fake Druid, faults injected at random
on every endpoint, then a tally of what a user would care about.

    python -m tests.chaos.run --seed 7 --n 300

Each ingestion gets its own day of datasource ``chaos`` and one of four forms: the one-shot
``DruidIngestOperator`` deferred (trigger serialized, rebuilt and run on an event loop, as a triggerer does) or
in the worker, sometimes raced by a second worker running the same task at once (a zombie and its retry, the
400 duplicate-id race), and the split form (``DruidSubmitOperator`` + ``DruidTaskSensor`` +
``DruidHandoffSensor``), deferred or poking. Airflow retries are simulated (``steps.run_task``). The same seed gives
the same forms, faults and Druid outcomes (timings still vary with the machine's load).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from . import env

env.prepare()

from .capture import Capture  # noqa: E402
from .faults import Injected, pick  # noqa: E402
from .steps import Outcome, run_task  # noqa: E402
from .tally import Ingestion, Tally, tally  # noqa: E402

__all__ = ["FORMS", "Ingestion", "chaos_run", "main"]

FORMS = ("oneshot_deferred", "oneshot_worker", "split_deferred", "split_poke")
DATASOURCE = "chaos"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
FAST = {"poll_interval": 0.05, "max_poll_interval": 0.2}


@dataclass
class _Plan:
    index: int
    form: str
    faults: list[Injected]
    druid_failed: bool
    race: bool
    day: datetime = field(default=START)

    @property
    def interval(self) -> str:
        return f"{self.day:%Y-%m-%d}T00:00:00Z/{self.day + timedelta(days=1):%Y-%m-%d}T00:00:00Z"


def _plans(seed: int, n: int, alias: str, untrusted: str) -> list[_Plan]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        form = FORMS[i % len(FORMS)] if i < len(FORMS) else rng.choice(FORMS)
        out.append(_Plan(i, form, pick(rng, alias, untrusted), rng.random() < 0.08,
                         form == "oneshot_worker" and rng.random() < 0.2, START + timedelta(days=i)))
    return out


def _ingest(plan: _Plan, retry: Any) -> list[Outcome]:
    """Run one ingestion in its form; the outcomes of its Airflow tasks, the last one deciding."""
    import pendulum
    from druid_ingest.testing import index_parallel_spec

    from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
    from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
    from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
    from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

    start = pendulum.instance(plan.day)
    context = {"data_interval_start": start, "data_interval_end": start.add(days=1)}
    spec = index_parallel_spec(DATASOURCE, [plan.interval])
    deferred = plan.form.endswith("deferred")
    if plan.form.startswith("oneshot"):
        def make() -> Any:
            return DruidIngestOperator(task_id="ingest", spec=spec, deferrable=deferred, http_retry=retry,
                                       task_timeout=30, handoff_timeout=30, **FAST)
        if not plan.race:
            return [run_task("ingest", make, context)]
        racer: list[Outcome] = []
        other = threading.Thread(target=lambda: racer.append(run_task("ingest", make, context)))
        other.start()
        mine = run_task("ingest", make, context)
        other.join(60)
        return [*racer, mine]
    submitted = run_task("submit", lambda: DruidSubmitOperator(task_id="submit", spec=spec, http_retry=retry), context)
    if submitted.error is not None:
        return [submitted]
    task_id = submitted.value
    waited = run_task("wait", lambda: DruidTaskSensor(
        task_id="wait", druid_task_id=task_id, deferrable=deferred, poke_interval=0.05, timeout=30, http_retry=retry,
        **FAST), context)
    if waited.error is not None:
        return [submitted, waited]
    gate = run_task("handoff", lambda: DruidHandoffSensor(
        task_id="handoff", druid_task_id=task_id, datasource=DATASOURCE, intervals=[plan.interval],
        deferrable=deferred, poke_interval=0.05, timeout=30, http_retry=retry, **FAST), context)
    return [submitted, waited, gate]


@contextlib.contextmanager
def _fast_shared_poller() -> Iterator[None]:
    """No RESUME_SETTLE hold, and: triggers share one poller per event loop that batches status reads at most
    once per second (``core/poller.py``); the run's fake tasks last 50 ms, so while it runs its triggers batch every
    20 ms (the batching itself, and its per-task fallback when the bulk call is refused, are what they are)."""
    from druid_ingest.clients._async_client import AsyncDruidClient

    import airflow_provider_druid_ingest.triggers.base as trigger_base

    def build(config: Any, retry: Any) -> AsyncDruidClient:
        return AsyncDruidClient(config, retry, shared=True, tick=0.02)

    original = trigger_base._build_client
    trigger_base._build_client = build
    # in-process runs have no scheduler to race: no RESUME_SETTLE hold (it would add 5 s to every deferred wait)
    settle = trigger_base.DruidWaitTrigger.resume_settle
    trigger_base.DruidWaitTrigger.resume_settle = 0.0
    try:
        yield
    finally:
        trigger_base._build_client = original
        trigger_base.DruidWaitTrigger.resume_settle = settle


def chaos_run(seed: int, n: int, echo: Callable[[str], None] = print) -> Tally:
    """``n`` ingestions under faults drawn from ``seed``; the tally (see ``tally.py``)."""
    from druid_ingest.testing import FakeDruid, TaskPlan
    from druid_ingest.wire._retry import RetryPolicy

    retry = RetryPolicy(max_attempts=4, initial_delay=0.01, max_delay=0.05, deadline=10.0)
    auth = {env.USER: (env.PASSWORD, "write")}
    with _fast_shared_poller(), FakeDruid(task_duration=0.05, handoff_delay=0.05, pending_delay=0.01, auth=auth,
                                          overshadowed_grace=0) as fake:
        alias, untrusted = f"http://localhost:{fake.port}", f"http://127.0.0.2:{fake.port}"
        conn = {"conn_type": "druid_cluster", "host": fake.url, "login": env.USER, "password": env.PASSWORD,
                "extra": {"read_timeout": 0.4, "connect_timeout": 1.0, "trusted_hosts": f"localhost:{fake.port}"}}
        previous = os.environ.get("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT")
        os.environ["AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT"] = json.dumps(conn)
        fired: list[tuple[int, Any]] = []
        take = fake._faults.take

        def recording_take(method: str, path: str) -> Any:  # which request each fault answered
            fault = take(method, path)
            if fault is not None:
                fired.append((len(fake.requests) - 1, fault))
            return fault

        fake._faults.take = recording_take  # type: ignore[method-assign]
        done: list[Ingestion] = []
        started = time.monotonic()
        try:
            with Capture() as capture:
                capture.canary()  # proves the capture sees log records and stdout before trusting a zero
                for plan in _plans(seed, n, alias, untrusted):
                    fake.clear_faults()
                    with fake.state.lock:
                        fake.state.plans.clear()
                    for injected in plan.faults:
                        fake.add_fault(injected.fault)
                    if plan.druid_failed:
                        fake.plan_next_task(TaskPlan(outcome="FAILED", error_msg="chaos: injected Druid failure"))
                    first = len(fake.requests)
                    outcomes = _ingest(plan, retry)
                    served = fake.served_segment_ids(DATASOURCE)  # right when the user's last task ended
                    with fake.state.lock:
                        running = sum(t.is_active for t in fake.state.tasks.values())
                    done.append(Ingestion(plan.index, plan.form, plan.interval, plan.faults, plan.druid_failed,
                                          plan.race, outcomes, first, len(fake.requests), served, running))
                    if (plan.index + 1) % 50 == 0:
                        capture.echo(f"chaos: {plan.index + 1}/{n} ingestions, {time.monotonic() - started:.0f}s")
                fake.clear_faults()
                deadline = time.time() + 10  # let Druid tasks a failed ingestion left behind finish
                while time.time() < deadline and any(t.is_active for t in fake.state.tasks.values()):
                    time.sleep(0.05)
        finally:
            fake._faults.take = take  # type: ignore[method-assign]
            if previous is None:
                os.environ.pop("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", None)
            else:
                os.environ["AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT"] = previous
        secrets = [env.PASSWORD, base64.b64encode(f"{env.USER}:{env.PASSWORD}".encode()).decode()]
        return tally(seed, done, fake, fired, capture.texts(), secrets, time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a random one, printed)")
    parser.add_argument("--n", type=int, default=300, help="number of ingestions (default 300)")
    parser.add_argument("--details", action="store_true", help="list every ingestion that did not complete")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"chaos run: seed {seed}, {args.n} ingestions (replay: python -m tests.chaos.run --seed {seed} "
          f"--n {args.n})", flush=True)
    result = chaos_run(seed, args.n)
    print(result.table())
    if args.details:
        print(result.details())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
