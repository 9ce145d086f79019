"""P3 in a real triggerer: 10,000 ``DruidTaskTrigger`` waits run by Airflow's own trigger runner, the fake Druid
in another process.

What runs (Airflow 3.3, ``airflow/jobs/triggerer_job_runner.py``): ``airflow triggerer`` is ``TriggererJobRunner``,
which starts a ``TriggerRunnerSupervisor`` (the sync main process: DB reads and writes) that forks the
``TriggerRunner`` subprocess (one asyncio loop running every trigger; the two talk over a socket). Here each
triggerer is a spawned process running that same ``TriggerRunnerSupervisor`` and its forked ``TriggerRunner``,
unmodified, with the supervisor's metadata-DB methods overridden as the class documents for DB-less (AIP-92)
subclasses: ``load_triggers`` takes ``RunTrigger`` workloads (classpath + Fernet-encrypted kwargs, exactly the
rows ``Trigger.bulk_fetch`` would give for triggers without a task instance) from the benchmark instead of the
``trigger`` table, ``heartbeat`` writes no ``job`` row, and events/failures are counted instead of written to
task instances. Everything in the runner process is Airflow's: the workload decoding, ``create_triggers``
(decrypting kwargs, instantiating ``DruidTaskTrigger`` from its classpath), ``run_trigger`` (greenback portal,
log context), the 1 s sync loop with the supervisor and the block watchdog. The connection comes from
``AIRFLOW_CONN_DRUID_BENCH`` (the Task SDK's environment secrets backend), so no GetConnection round trip.

A probe trigger (``p3_probe.LagProbeTrigger``) in the same loop records loop lag, the runner's RSS and the shared
poller's counters each second. "Herd" is every Overlord request from the moment all waits are handed to the
runner at once (as after a triggerer restart) until the poller has given each its first look; the window then
measures the steady state.

    .venv/bin/python benchmarks/p3_triggerer.py [--waits 10000] [--window 60]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import ROOT, machine, print_machine, write_results  # noqa: E402
from p3_fake import FakeProcess  # noqa: E402

CONN_ID = "druid_bench"
TASK_TRIGGER = "airflow_provider_druid_ingest.triggers.task.DruidTaskTrigger"
PROBE_TRIGGER = "p3_probe.LagProbeTrigger"
STATE = ROOT / "var" / "bench-airflow"  # this benchmark's own AIRFLOW_HOME (logs, config): never the deployment's


def _environment(fake_url: str) -> dict[str, str]:
    """The triggerer's environment: its own AIRFLOW_HOME, a Fernet key, the connection to the fake."""
    from cryptography.fernet import Fernet

    host, port = fake_url.removeprefix("http://").split(":")
    return {
        "AIRFLOW_HOME": str(STATE),
        "AIRFLOW__CORE__FERNET_KEY": os.environ.get("AIRFLOW__CORE__FERNET_KEY") or Fernet.generate_key().decode(),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",
        f"AIRFLOW_CONN_{CONN_ID.upper()}": json.dumps({"conn_type": "druid_cluster", "host": host, "port": int(port),
                                                       "schema": "http", "extra": {"read_timeout": 300}}),
        "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT), str(ROOT / "packages" / "druid-ingest"),
                                       os.environ.get("PYTHONPATH", "")]),
    }


def _triggerer(control: Any, log_path: str, capacity: int) -> None:
    """One triggerer: Airflow's TriggerRunnerSupervisor (this process) and the TriggerRunner it forks."""
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    import structlog
    from airflow.executors.workloads.trigger import RunTrigger
    from airflow.jobs.triggerer_job_runner import TriggerRunnerSupervisor
    from airflow.models.trigger import Trigger

    class BenchTriggerSupervisor(TriggerRunnerSupervisor):
        """The supervisor with the benchmark standing in for the ``trigger`` and ``job`` tables."""

        def load_triggers(self) -> None:
            while control.poll():
                command, arg = control.recv()
                if command == "add":  # [(trigger id, classpath, kwargs)]
                    self.creating_triggers.extend(
                        RunTrigger(id=i, classpath=path, encrypted_kwargs=Trigger.encrypt_kwargs(kwargs))
                        for i, path, kwargs in arg)
                    control.send(len(arg))
                elif command == "stop":
                    self.stop = True

        def heartbeat(self) -> None:
            pass  # no ``job`` row: nothing else watches this triggerer

        def metric_tags(self) -> dict[str, str]:
            return {"hostname": "p3-bench"}

        def handle_events(self) -> None:
            while self.events:
                entry = self.events.popleft()
                fired[str(entry.event.payload.get("status") if isinstance(entry.event.payload, dict) else "?")] += 1

        def handle_failed_triggers(self) -> None:
            while self.failed_triggers:
                _, exc = self.failed_triggers.popleft()
                failures.append(str(exc)[:300])

        def clean_unused(self) -> None:
            pass

    from collections import Counter

    fired: Counter[str] = Counter()
    failures: list[str] = []
    supervisor = BenchTriggerSupervisor.start(job=None, capacity=capacity, logger=structlog.get_logger())
    control.send({"runner_pid": supervisor.pid, "supervisor_pid": os.getpid()})
    try:
        supervisor.run()
    finally:
        supervisor.kill(escalation_delay=10, force=True)
        control.send({"events": dict(fired), "failures": failures[:20], "failed": len(failures)})


class Triggerer:
    """A triggerer process (supervisor + runner) and its probe's lines."""

    def __init__(self, name: str, env: dict[str, str], capacity: int, tag: str = "") -> None:
        STATE.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.probe = STATE / f"{name}{tag}.probe.jsonl"
        self.probe.unlink(missing_ok=True)
        self.log = STATE / f"{name}{tag}.log"
        self._conn, child = mp.Pipe()
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # a spawned child reads its environment at start
        try:
            self._proc = mp.get_context("spawn").Process(target=_triggerer, args=(child, str(self.log), capacity))
            self._proc.start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        pids = self._conn.recv()
        self.runner_pid: int = pids["runner_pid"]
        self.supervisor_pid: int = pids["supervisor_pid"]
        self._next_id = 1

    def add(self, triggers: list[tuple[str, dict[str, Any]]]) -> None:
        batch = [(self._next_id + n, path, kwargs) for n, (path, kwargs) in enumerate(triggers)]
        self._next_id += len(batch)
        self._conn.send(("add", batch))
        self._conn.recv()

    def start_probe(self, timeout: float = 120, freeze_at: int = 0) -> dict[str, Any]:
        """Add the probe and wait for its first line: the runner with the Druid code loaded, no waits yet."""
        self.add([(PROBE_TRIGGER, {"out": str(self.probe), "conn_id": CONN_ID, "freeze_at": freeze_at})])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.lines()
            if len(lines) >= 2:
                return lines[-1]
            time.sleep(0.5)
        raise RuntimeError(f"{self.name}: the probe trigger did not start (see {self.log})")

    def lines(self) -> list[dict[str, Any]]:
        if not self.probe.exists():
            return []
        return [json.loads(line) for line in self.probe.read_text().splitlines() if line.endswith("}")]

    def rss_mb(self, pid: int | None = None) -> float:
        with open(f"/proc/{pid or self.runner_pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def census(self, timeout: float = 120) -> dict[str, Any]:
        """The runner's tracked objects by type, taken by the probe (``p3_probe.census``)."""
        answer = Path(f"{self.probe}.census.json")
        answer.unlink(missing_ok=True)
        Path(f"{self.probe}.census").touch()
        deadline = time.monotonic() + timeout
        while not answer.exists():
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: the probe wrote no census (see {self.log})")
            time.sleep(0.5)
        return json.loads(answer.read_text())  # type: ignore[no-any-return]

    def stop(self) -> dict[str, Any]:
        self._conn.send(("stop", None))
        out: dict[str, Any] = self._conn.recv() if self._conn.poll(60) else {"events": "?", "failed": "?"}
        self._proc.join(30)
        return out


def wait_trigger(task_id: str, end_time: float, baseline: bool = False) -> tuple[str, dict[str, Any]]:
    """The kwargs ``DruidTaskTrigger.serialize`` gives for a deferred ``DruidIngestOperator`` wait (defaults);
    ``baseline``: Airflow's own ``DateTimeTrigger`` until ``end_time`` instead (the cheapest wait Airflow ships,
    what the triggerer itself costs per trigger)."""
    if baseline:
        import datetime as dt

        from airflow.providers.standard.triggers.temporal import DateTimeTrigger

        return DateTimeTrigger(moment=dt.datetime.fromtimestamp(end_time, dt.timezone.utc)).serialize()
    from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

    path, kwargs = DruidTaskTrigger(druid_task_id=task_id, conn_id=CONN_ID, end_time=end_time).serialize()
    return path, kwargs


def corrected(lags: list[float], every: float = 10.0) -> list[float]:
    """The samples a ticker every ``every`` ms would have taken had the loop not stalled: a stall of L ms also
    stands for the ticks it swallowed (L - 10, L - 20, ...), so a long stall weighs as the time it lasted."""
    out = []
    for lag in lags:
        out.append(lag)
        missed = lag - every
        while missed > 0:
            out.append(missed)
            missed -= every
    return sorted(out)


def requests_total(counts: dict[str, int]) -> int:
    return sum(n for k, n in counts.items() if k != "ids asked")


def _gc_summary(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Collector pauses the probe saw, per generation: how many, the longest, the total (ms); for the full ones, the
    objects they freed."""
    out: dict[str, Any] = {}
    for gen in ("0", "1", "2"):
        pauses = [p for line in lines for p in line.get("gc_ms", {}).get(gen, [])]
        out[f"gen{gen}"] = {"count": len(pauses), "max_ms": max(pauses, default=0.0),
                            "total_ms": round(sum(pauses), 1)}
    out["gen2"]["freed"] = sum(n for line in lines for n in line.get("gc_full_freed", []))
    return out


def _p99(sorted_lags: list[float]) -> float | None:
    return round(sorted_lags[int(0.99 * (len(sorted_lags) - 1))], 1) if sorted_lags else None


def herd_and_window(fake: FakeProcess, triggerers: list[Triggerer], waits_each: int, window: float,
                    max_herd: float, build_over: float = 0.0, census: bool = False) -> dict[str, Any]:
    """Hand every triggerer its waits at once (``build_over`` > 0: in equal batches, one a second, over that many
    seconds, as a slow runner builds them), count the herd until each poller gave all first looks, then measure
    ``window`` seconds of steady state (``census``: then each runner's tracked objects by type, ``p3_probe``)."""
    bases = {t.name: t.rss_mb() for t in triggerers}
    baseline = all(path != TASK_TRIGGER for t in triggerers for path, _ in t.pending)  # type: ignore[attr-defined]
    fake.ask("clear")
    go = time.time()
    batches = max(1, int(build_over))
    for t in triggerers:
        t.add(t.pending[:len(t.pending) // batches])  # type: ignore[attr-defined]
    handed = 1
    herd_s = None
    while time.time() - go < max_herd:
        time.sleep(1.0)
        if handed < batches:
            handed += 1
            for t in triggerers:
                n = len(t.pending)  # type: ignore[attr-defined]
                t.add(t.pending[(handed - 1) * n // batches:handed * n // batches])  # type: ignore[attr-defined]
        last = [t.lines()[-1] for t in triggerers]
        # every wait had its first look; a baseline (no Druid) wait: its trigger runs (one asyncio task each)
        looks = [line["tasks"] if baseline else line["poller"].get("first looks", 0) for line in last]
        if all(n >= waits_each for n in looks):
            herd_s = time.time() - go
            break
    herd = fake.ask("count")
    started = time.time()
    time.sleep(window)
    counts = fake.ask("count") - herd
    minutes = (time.time() - started) / 60
    per: list[dict[str, Any]] = []
    for t in triggerers:
        lines = t.lines()
        lags = sorted(x for line in lines if started <= line["t"] <= started + window + 1 for x in line["lag_ms"])
        peak = max([line["rss_mb"] for line in lines if line["t"] >= go] + [t.rss_mb()])
        per.append({"triggerer": t.name, "rss_base_mb": round(bases[t.name], 1),
                    "rss_growth_mb": round(peak - bases[t.name], 1),
                    "supervisor_rss_mb": round(t.rss_mb(t.supervisor_pid), 1),
                    "loop_lag_p99_ms": _p99(lags),
                    "loop_lag_max_ms": round(lags[-1], 1) if lags else None,
                    "loop_lag_p99_time_weighted_ms": _p99(corrected(lags)),
                    "poller": lines[-1]["poller"], "asyncio_tasks": lines[-1]["tasks"],
                    "gc_pauses_in_window": _gc_summary([line for line in lines
                                                        if started <= line["t"] <= started + window + 1])})
        if census:
            per[-1]["census"] = t.census()
    status_calls = counts["bulk status"] + counts["status"]
    total_waits = waits_each * len(triggerers)
    herd_n = requests_total(herd)
    return {"triggerers": len(triggerers), "waits_each": waits_each, "herd_s": round(herd_s, 1) if herd_s else None,
            "herd_requests": herd_n, "herd_per_100_waits": round(100 * herd_n / total_waits, 2),
            "herd_by_kind": {k: n for k, n in herd.items() if k != "ids asked"},
            "requests_per_min": round(requests_total(counts) / minutes, 1),
            "bulk_calls_per_min": round(counts["bulk status"] / minutes, 1),
            "status_calls_per_tick": round(status_calls / (minutes * 60), 2),
            "status_reads_per_min": round(counts["ids asked"] / minutes, 1),
            "window_by_kind": {k: n for k, n in counts.items() if k != "ids asked"}, "per_triggerer": per}


def run(waits_each: int, triggerer_count: int, window: float, max_herd: float, first_task: int = 0,
        fake: FakeProcess | None = None, baseline: bool = False, gc_freeze: bool = False, history: int = 0,
        build_over: float = 0.0, census: bool = False) -> dict[str, Any]:
    """Seed the tasks, start the triggerers with their probes, then the herd and the window."""
    own = fake is None
    fake = fake or FakeProcess()
    env = _environment(fake.url)
    seeded = time.perf_counter()
    if history:
        print(f"seeded {fake.ask(f'history {history}'):,} completed one-hour tasks (history)", flush=True)
    ids = fake.ask(f"seed {first_task} {waits_each * triggerer_count}")
    print(f"seeded {len(ids):,} tasks into the fake in {time.perf_counter() - seeded:.1f} s", flush=True)
    end = time.time() + 7200
    triggerers = []
    try:
        for n in range(triggerer_count):
            t = Triggerer(f"triggerer-{n + 1}", env, capacity=waits_each + 10,
                          tag=f"-{triggerer_count}x{waits_each}{'-baseline' if baseline else ''}"
                              f"{'-gc-freeze' if gc_freeze else ''}{'-history' if history else ''}")
            t.start_probe(freeze_at=waits_each if gc_freeze else 0)
            t.pending = [wait_trigger(i, end, baseline) for i in ids[n * waits_each:(n + 1) * waits_each]]  # type: ignore
            triggerers.append(t)
        row = herd_and_window(fake, triggerers, waits_each, window, max_herd, build_over, census)
    finally:
        outcomes = [t.stop() for t in triggerers]
        if own:
            fake.stop()
    row["events_fired"] = [o.get("events") for o in outcomes]
    row["triggers_failed"] = [o.get("failed") for o in outcomes]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--waits", type=int, default=10_000)
    parser.add_argument("--window", type=float, default=60.0, help="seconds of steady state measured")
    parser.add_argument("--max-herd", type=float, default=600.0, help="seconds at most for every first look")
    parser.add_argument("--baseline", action="store_true",
                        help="Airflow's DateTimeTrigger instead of DruidTaskTrigger: what the triggerer costs alone")
    parser.add_argument("--gc-freeze", action="store_true",
                        help="experiment: the probe calls gc.freeze() once every wait had its first look")
    parser.add_argument("--history", type=int, default=0, metavar="DAYS",
                        help="seed DAYS completed one-hour ingestions per datasource first, so the waits predict "
                             "their end and sleep (a daily datasource) instead of polling on the backoff")
    parser.add_argument("--build-over", type=float, default=0.0, metavar="SECONDS",
                        help="hand the waits over in equal batches, one a second, over SECONDS (a slow build)")
    parser.add_argument("--census", action="store_true",
                        help="after the window: the runner's tracked objects by type (what a full collection walks)")
    args = parser.parse_args()
    info = machine("aiohttp", "apache-airflow-core")
    print_machine(info)
    row = run(args.waits, 1, args.window, args.max_herd, baseline=args.baseline, gc_freeze=args.gc_freeze,
              history=args.history, build_over=args.build_over, census=args.census)
    row["gc_freeze"] = args.gc_freeze
    row["history_days"] = args.history
    row["build_over_s"] = args.build_over
    row["trigger"] = "DateTimeTrigger (baseline)" if args.baseline else "DruidTaskTrigger"
    one = row["per_triggerer"][0]
    print(json.dumps(row, indent=1, default=str))
    goals = [
        ("RSS growth of the trigger runner (MB)", one["rss_growth_mb"], "<= 100", one["rss_growth_mb"] <= 100),
        ("loop lag p99 (ms)", one["loop_lag_p99_ms"], "<= 50", (one["loop_lag_p99_ms"] or 1e9) <= 50),
        ("loop lag p99, stalls weighted by time (ms)", one["loop_lag_p99_time_weighted_ms"], "<= 50",
         (one["loop_lag_p99_time_weighted_ms"] or 1e9) <= 50),
        ("status calls per 1 s tick", row["status_calls_per_tick"], "<= 1", row["status_calls_per_tick"] <= 1),
        ("start-up herd: requests per 100 waits", row["herd_per_100_waits"], "<= 2", row["herd_per_100_waits"] <= 2),
    ]
    print(f"\nP3, {args.waits:,} {row['trigger']} waits in one real triggerer (Airflow TriggerRunner), "
          f"herd {row['herd_requests']} requests in {row['herd_s']} s, window {args.window:.0f} s")
    print(f"{'figure':<42} {'value':>10}  {'goal':>6}  met")
    for name, value, goal, met in goals:
        print(f"{name:<42} {value!s:>10}  {goal:>6}  {'yes' if met else 'NO'}")
    name = ("p3_triggerer" + ("_baseline" if args.baseline else "") + ("_gc_freeze" if args.gc_freeze else "")
            + ("_history" if args.history else "") + (f"_build{args.build_over:.0f}" if args.build_over else ""))
    write_results(name, {"machine": info, "window_s": args.window, "row": row,
                         "goals": [{"figure": g[0], "value": g[1], "goal": g[2], "met": g[3]} for g in goals]})


if __name__ == "__main__":
    main()
