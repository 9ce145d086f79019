"""What the chaos run counts, from the fake's own records (tasks, requests, served segments), never from what
the code under test says about itself."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from .faults import Injected
from .steps import Outcome

__all__ = ["Ingestion", "Tally", "tally"]


@dataclass
class Ingestion:
    index: int
    form: str
    interval: str
    faults: list[Injected]
    druid_failed: bool
    race: bool
    outcomes: list[Outcome]
    first_request: int
    last_request: int
    served: set[str]
    running_after: int = 0  # Druid tasks still active when the ingestion's last Airflow task ended

    @property
    def final(self) -> Outcome:
        return self.outcomes[-1]

    @property
    def completed(self) -> bool:
        """The user's last task of the ingestion succeeded (and every earlier one of the form)."""
        expected = 1 if self.form.startswith("oneshot") else 3
        return len(self.outcomes) >= expected and all(o.error is None for o in self.outcomes[-expected:])


@dataclass
class Tally:
    seed: int
    rows: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    #: rows that must be zero
    MUST_BE_ZERO = ("duplicate Druid tasks", "lost intervals", "green but not queryable", "retries burned on fatal",
                    "secrets seen", "unexpected exceptions", "Druid tasks running after a green run")

    @property
    def ok(self) -> bool:
        seen = self.rows.get("capture self-check (canaries found, of 3)") == 3
        return seen and all(self.rows.get(name, 0) == 0 for name in self.MUST_BE_ZERO)

    def table(self) -> str:
        width = max(len(k) for k in self.rows)
        lines = [f"chaos tally (seed {self.seed}, {self.seconds:.0f}s)", "-" * (width + 10)]
        lines += [f"{name:<{width}}  {value:>6}" for name, value in self.rows.items()]
        return "\n".join(lines)

    def details(self) -> str:
        return "\n".join(self.notes)


def _overlaps(tasks: list[Any], now: float) -> int:
    """Pairs of tasks for one interval alive at the same time (the second would be a second ingestion)."""
    overlapping, latest_end = 0, float("-inf")
    for start, end in sorted((t.created_at, t.finished_at or now) for t in tasks):
        overlapping += start < latest_end
        latest_end = max(latest_end, end)
    return overlapping


def tally(seed: int, done: list[Ingestion], fake: Any, fired: list[tuple[int, Any]], texts: list[str],
          secrets: list[str], seconds: float) -> Tally:
    import time

    requests = fake.requests
    with fake.state.lock:
        tasks = list(fake.state.tasks.values())
    by_interval: dict[tuple[Any, ...], list[Any]] = defaultdict(list)
    for task in tasks:
        by_interval[tuple(task.parsed.intervals)].append(task)
    now = time.time()
    duplicates = sum(max(0, sum(t.state == "SUCCESS" for t in group) - 1) + _overlaps(group, now)
                     for group in by_interval.values())
    rows: Counter[str] = Counter()
    out = Tally(seed, seconds=seconds)
    rows["ingestions"] = len(done)
    for form in sorted({i.form for i in done}):
        rows[f"  {form}"] = sum(i.form == form for i in done)
    rows["faults injected"] = sum(len(i.faults) for i in done)
    rows["faults fired"] = sum(1 for _ in fired)
    fatal_fired = {index for index, fault in fired if any(f.fault is fault and f.fatal for i in done for f in i.faults)}
    rows["  fatal faults fired"] = len(fatal_fired)
    rows["Druid tasks FAILED on purpose"] = sum(i.druid_failed for i in done)
    rows["raced by a second worker"] = sum(i.race for i in done)
    rows["Druid tasks accepted"] = len(tasks)
    rows["completed (green, queryable)"] = sum(i.completed for i in done)
    rows["failed fast (fatal, no retry)"] = sum(not i.completed and i.final.failed_fast for i in done)
    rows["failed after Airflow retries"] = sum(not i.completed and not i.final.failed_fast for i in done)
    rows["Airflow tries run"] = sum(o.tries for i in done for o in i.outcomes)
    rows["duplicate Druid tasks"] = duplicates
    # a green run has nothing left running; a failed one may (a 403 mid-wait cannot shut the task down: a re-run
    # adopts it); still running ten seconds after the whole run = stuck
    rows["Druid tasks running after a green run"] = sum(i.running_after for i in done if i.completed)
    rows["failed runs leaving a Druid task running"] = sum(1 for i in done if not i.completed and i.running_after)
    rows["Druid tasks still running at the end"] = sum(t.is_active for t in tasks)
    burned = 0
    for ing in done:
        mine = sorted(ix for ix in fatal_fired if ing.first_request <= ix < ing.last_request)
        for ix in mine:  # the retry policy retrying a fatal answer: the very next request is the same one
            if ix + 1 < ing.last_request and _same(requests[ix], requests[ix + 1]) and not ing.race:
                burned += 1
                out.notes.append(f"#{ing.index}: fatal answer to {requests[ix].method} {requests[ix].path} retried")
        if mine and not ing.completed:  # a failed ingestion: nobody may ask the fatal endpoint again
            last = requests[mine[-1]]
            again = [r for r in requests[mine[-1] + 1:ing.last_request] if (r.method, r.path) == (last.method,
                                                                                                 last.path)]
            burned += len(again)
            if again:
                out.notes.append(f"#{ing.index}: {len(again)} request(s) to {last.method} {last.path} after its "
                                 f"fatal answer")
    for ing in done:  # an Airflow retry after a try that a fatal answer failed
        for outcome in ing.outcomes:
            for number, error in enumerate(outcome.try_errors[:-1] if outcome.error else outcome.try_errors, 1):
                if _FATAL_TEXT.search(error):
                    burned += 1
                    out.notes.append(f"#{ing.index}: Airflow retried after try {number} failed on: {error[:200]}")
    rows["retries burned on fatal"] = burned
    green_unserved = lost = 0
    for ing in done:
        mine = [t for t in by_interval.get(_key(ing.interval), []) if t.state == "SUCCESS"]
        if ing.completed:
            segments = {s["identifier"] for t in mine for s in t.segments}
            if not mine or not segments <= ing.served:
                green_unserved += 1
                out.notes.append(f"#{ing.index} {ing.form}: green but not queryable")
        elif ing.final.error is None:
            lost += 1
        if not ing.completed:
            out.notes.append(f"#{ing.index} {ing.form} faults={[(f.endpoint, f.kind) for f in ing.faults]} "
                             f"failed={ing.druid_failed}: {str(ing.final.error)[:300]!r}")
    rows["green but not queryable"] = green_unserved
    rows["lost intervals"] = lost
    rows["failed, but Druid data landed"] = sum(
        1 for i in done if not i.completed and any(t.state == "SUCCESS" for t in by_interval.get(_key(i.interval),
                                                                                                   [])))
    unexpected = [u for i in done for o in i.outcomes for u in o.unexpected]
    rows["unexpected exceptions"] = len(unexpected)
    out.notes.extend(u[-1500:] for u in unexpected[:5])
    everything = texts + [t for i in done for o in i.outcomes for t in o.texts]
    rows["texts checked for secrets"] = len(everything)
    rows["capture self-check (canaries found, of 3)"] = sum("chaos-capture-canary" in t for t in texts[-3:])
    rows["operator log lines captured"] = sum(t.count("Druid task") for t in texts)
    rows["secrets seen"] = sum(text.count(secret) for text in everything for secret in secrets)
    out.rows = dict(rows)
    return out


#: how a fatal answer reads in an error (errors.DruidError renders "HTTP <status>"; refused redirects say why)
_FATAL_TEXT = re.compile(r"HTTP (400|401|403|404|405|415)\b|not a configured cluster host|redirected to Location")


def _same(a: Any, b: Any) -> bool:
    return (a.method, a.path, a.query_string, a.body) == (b.method, b.path, b.query_string, b.body)


def _key(interval: str) -> tuple[Any, ...]:
    from druid_ingest.testing.fake_time import parse_interval

    return (parse_interval(interval),)
