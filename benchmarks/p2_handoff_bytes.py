"""P2: response bytes per handoff check as the datasource grows around the task's day (supersedes handoff_cost.py).

Why: a gate polled every few seconds for every ingestion must cost the same whether the datasource holds a day
or ten years. The naive tutorial check (``GET /datasources/{ds}/segments?full``, filtered client-side) reads the
whole served datasource each time; ours reads the metadata of the task's interval once (``check_handoff`` =
metadata POST + ids-only served listing + Broker candidates) and then, in ``watch_handoff``, only the served ids
of its span (plus the Broker once served).

What is counted: response *body* bytes, decoded ("raw", what the server would send uncompressed) and as received
("wire", gzip when the server compressed it: real Druid's Jetty does for any client sending
``Accept-Encoding: gzip``, as requests and aiohttp do; the fake does the same for JSON over 256 bytes). Headers
are not counted. The package's own client does the requests (a ``requests.Session`` subclass passed to
``DruidClient`` only counts them); the fake Druid serves them over real HTTP on 127.0.0.1.

Setup: the task (24 hourly segments of 2026-11-01) is ingested first; then the *other* segments are preloaded
into the same datasource on earlier days, 10 ``preload_segments`` calls of N/10 partitions each (the fake
replays its state on every call, so 100k one-segment calls would take hours; many partitions per call keep the
setup under a minute and give segment JSON of the same size as hourly ones). Sizes grow in place: 1k, +9k, +90k.
Then the same checks against the real Druid (``--druid``, datasource ``events_web``) for real-wire numbers.

    .venv/bin/python benchmarks/p2_handoff_bytes.py [--sizes 1000 10000 100000] [--druid http://127.0.0.1:8888]
"""

from __future__ import annotations

import argparse
import gzip
import re
import threading
import time
import zlib
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from typing import Any
from urllib.parse import urlsplit

import benchlib
import requests
from druid_ingest import ClusterConfig, PollSchedule
from druid_ingest.clients._sync_client import DruidClient, drive
from druid_ingest.ops.gate.steps import gate_chunks, gate_look
from druid_ingest.testing import FakeDruid, index_parallel_spec

DS = "bench_handoff"
DAY = date(2026, 11, 1)
INTERVAL = f"{DAY}T00:00:00.000Z/{DAY + timedelta(days=1)}T00:00:00.000Z"
GOAL_BYTES = 2048
FAST = PollSchedule(0.05, 0.2)


@dataclass
class Exchange:
    method: str
    path: str
    kind: str
    raw: int
    wire: int
    encoding: str


def kind_of(method: str, path: str) -> str:
    if method == "POST" and "/metadata/datasources/" in path:
        return "metadata"
    if "/intervals/" in path:
        return "served_ids"
    if path.endswith("/candidates"):
        return "broker"
    if path.endswith("/handoffComplete"):
        return "probe"
    if path.endswith("/segments"):
        return "naive_full"
    return "other"


class CountingSession(requests.Session):
    """Reads each body undecoded to count the bytes that crossed the wire, then decodes it as requests would.

    (urllib3's ``tell()`` reports 0 for chunked responses, which Druid uses for big listings.)
    """

    def __init__(self) -> None:
        super().__init__()
        self.log: list[Exchange] = []

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        kwargs["stream"] = True
        resp = super().send(request, **kwargs)
        wire = b"".join(resp.raw.stream(1 << 16, decode_content=False))
        encoding = resp.headers.get("Content-Encoding", "identity").lower()
        if encoding == "gzip":
            body = gzip.decompress(wire)
        elif encoding == "deflate":
            body = zlib.decompress(wire)
        else:
            body = wire
        resp._content = body
        resp._content_consumed = True
        method = request.method or "GET"
        path = urlsplit(request.url or "").path
        self.log.append(Exchange(method, path, kind_of(method, path), len(body), len(wire), encoding))
        return resp

    def take(self) -> list[Exchange]:
        out, self.log = self.log, []
        return out


def total(exchanges: list[Exchange], field: str) -> int:
    return sum(getattr(e, field) for e in exchanges)


def naive_check(session: CountingSession, url: str, datasource: str, interval: str) -> tuple[list[Exchange], int, int]:
    """The tutorial gate: every served segment of the datasource, kept if it lies in the interval, size > 0.
    Returns the exchanges, the segments it found in the interval and all it was sent."""
    start, end = interval.split("/")
    resp = session.get(f"{url}/druid/coordinator/v1/datasources/{datasource}/segments", params={"full": "true"},
                       timeout=600)
    resp.raise_for_status()
    mine = [s for s in resp.json() if start <= s["interval"].split("/")[0] < end and s.get("size", 0) > 0]
    return session.take(), len(mine), len(resp.json())


def ours(client: DruidClient, session: CountingSession, target: Any) -> dict[str, Any]:
    """First full check (check_handoff), then one later look of watch_handoff (ids-only served + Broker)."""
    session.take()
    state = client.check_handoff(target).state
    first = session.take()
    chunks = drive(gate_chunks(target), client.transport, client.config, client.retry)
    session.take()
    later_state = drive(gate_look(target, chunks), client.transport, client.config, client.retry).state
    later = session.take()
    return {"state": state, "later_state": later_state, "first": first, "later": later}


def row_for(label: str, n_other: int, mine: dict[str, Any], naive: list[Exchange], naive_found: int) -> dict:
    first, later = mine["first"], mine["later"]
    return {
        "where": label,
        "other_segments": n_other,
        "naive_raw": total(naive, "raw"),
        "naive_wire": total(naive, "wire"),
        "first_raw": total(first, "raw"),
        "first_wire": total(first, "wire"),
        "later_raw": total(later, "raw"),
        "later_wire": total(later, "wire"),
        "calls": f"{len(first)}/{len(later)}/{len(naive)}",
        "wire_ratio": round(total(naive, "wire") / max(total(first, "wire"), 1), 1),
        "state": f"{mine['state']}/{mine['later_state']}/{naive_found} found",
        "exchanges": {"first": [asdict(e) for e in first], "later": [asdict(e) for e in later],
                      "naive": [asdict(e) for e in naive]},
    }


def watch_trace(fake: FakeDruid, client: DruidClient, session: CountingSession, target: Any) -> list[Exchange]:
    """A real watch_handoff over a pending handoff: loading paused for a few looks, then resumed."""
    pending = threading.Event()
    looks = []

    def on_progress(item: Any) -> None:
        looks.append(item)
        if len(looks) >= 3:
            pending.set()

    session.take()
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.update(
        outcome=client.watch_handoff(target, 60, PollSchedule(0.2, 0.2), on_progress=on_progress)))
    worker.start()
    if not pending.wait(30):
        raise RuntimeError("watch_handoff never reported a pending look")
    fake.resume_loading()
    worker.join(60)
    outcome = result["outcome"]
    if outcome.kind != "success":
        raise RuntimeError(f"watch_handoff ended {outcome.kind}")
    return session.take()


def preload_others(fake: FakeDruid, have: int, want: int) -> None:
    """``want - have`` more segments on days before the task's day, in 10 calls (see the module docstring)."""
    add, calls = want - have, 10
    for i in range(calls):
        day = date(2015, 1, 1) + timedelta(days=have // 1000 + i * 40 + 1)  # days nobody else uses
        n = add // calls + (1 if i < add % calls else 0)
        fake.preload_segments(DS, f"{day}T00:00:00Z/{day + timedelta(days=1)}T00:00:00Z", "2020-01-01T00:00:00.000Z",
                              partitions=n)


def run_fake(sizes: list[int]) -> tuple[list[dict], dict[str, Any]]:
    rows: list[dict] = []
    session = CountingSession()
    with FakeDruid(task_duration=0.1, handoff_delay=0.1) as fake, \
            DruidClient(ClusterConfig(url=fake.url), session=session) as client:
        spec = index_parallel_spec(datasource=DS, intervals=[INTERVAL], segment_granularity="HOUR")
        fake.pause_loading()  # the watch trace below starts with the task's segments unserved
        task_id = client.ensure_submitted(spec).task_id
        status = client.wait_for_task(task_id, 30, FAST, predict=False)
        target = client.handoff_target(task_id, DS, [INTERVAL], version_ceiling=status.version_ceiling)
        trace = watch_trace(fake, client, session, target)
        have = 0
        for n in sorted(sizes):
            t0 = time.monotonic()
            preload_others(fake, have, n)
            have = n
            setup = time.monotonic() - t0
            mine = ours(client, session, target)
            naive, found, _ = naive_check(session, fake.url, DS, INTERVAL)
            row = row_for("fake", n, mine, naive, found)
            row["setup_s"] = round(setup, 1)
            rows.append(row)
            print(f"  fake, {n:,} other segments: preload {setup:.1f} s, checked", flush=True)
    looks: dict[str, Any] = {}
    for e in trace:
        entry = looks.setdefault(e.kind, {"calls": 0, "raw": 0, "wire": 0})
        entry["calls"] += 1
        entry["raw"] += e.raw
        entry["wire"] += e.wire
    return rows, {"task_id": task_id, "by_kind": looks, "exchanges": [asdict(e) for e in trace]}


def run_real(url: str, datasource: str) -> dict | None:
    """Ours and the naive check once against the real Druid: the newest SUCCESS ingestion of one day."""
    try:
        tasks = requests.get(f"{url}/druid/indexer/v1/tasks", params={"state": "complete", "datasource": datasource},
                             timeout=30).json()
    except (requests.RequestException, ValueError) as exc:
        print(f"  real Druid at {url}: not reachable ({type(exc).__name__}); skipped")
        return None
    span = re.compile(r"_(\d{8})-(\d{8})_")
    for task in tasks:  # newest first
        m = span.search(task.get("id", ""))
        if task.get("type") == "index_parallel" and task.get("statusCode") == "SUCCESS" and m:
            first, last = (date(int(s[:4]), int(s[4:6]), int(s[6:])) for s in m.groups())
            if last - first == timedelta(days=1):
                break
    else:
        print(f"  real Druid: no one-day SUCCESS index_parallel task in {datasource}; skipped")
        return None
    interval = f"{first}T00:00:00.000Z/{last}T00:00:00.000Z"
    session = CountingSession()
    with DruidClient(ClusterConfig(url=url, read_timeout=120), session=session) as client:
        target = client.handoff_target(task["id"], datasource, [interval])
        mine = ours(client, session, target)
        naive, found, served = naive_check(session, url, datasource, interval)
    row = row_for(f"real {datasource}", served - found, mine, naive, found)
    row["task_id"] = task["id"]
    row["interval"] = interval
    return row


COLUMNS = [
    ("where", "where"), ("other_segments", "other segs"),
    ("naive_raw", "naive raw B"), ("naive_wire", "naive wire B"),
    ("first_raw", "ours 1st raw B"), ("first_wire", "ours 1st wire B"),
    ("later_raw", "later raw B"), ("later_wire", "later wire B"),
    ("wire_ratio", "naive/ours wire"), ("calls", "calls 1st/later/naive"), ("state", "verdicts"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--druid", default="http://127.0.0.1:8888", help="real Druid Router ('' to skip)")
    parser.add_argument("--datasource", default="events_web")
    args = parser.parse_args()
    started = time.monotonic()
    info = benchlib.machine("aiohttp", "requests", "urllib3")
    benchlib.print_machine(info)
    print(f"P2 handoff bytes: a day of 24 hourly segments ({INTERVAL}) among N other segments")
    rows, trace = run_fake(args.sizes)
    real = run_real(args.druid, args.datasource) if args.druid else None
    if real is not None:
        rows.append(real)
    print()
    benchlib.print_table(COLUMNS, rows)
    by_kind = trace["by_kind"]
    print("watch_handoff trace (fake, 3 pending looks then served): "
          + ", ".join(f"{k} x{v['calls']} = {v['wire']} B wire ({v['raw']} raw)" for k, v in by_kind.items()))
    fake_rows = [r for r in rows if r["where"] == "fake"]
    lo, hi = fake_rows[0], fake_rows[-1]
    worst = max(r["first_wire"] for r in rows)
    growth = hi["first_wire"] / max(lo["first_wire"], 1)
    met = worst <= GOAL_BYTES and growth <= 1.05
    print(f"ratio: naive/ours (wire, first full check) = {lo['wire_ratio']}x at {lo['other_segments']:,} -> "
          f"{hi['wire_ratio']}x at {hi['other_segments']:,} other segments; ours {lo['first_wire']} -> "
          f"{hi['first_wire']} B wire (x{growth:.2f}), later look {hi['later_wire']} B | goal: <= 2 KB per check, flat "
          f"from 1k to 100k -> {'MET' if met else 'NOT MET'} on the wire (raw first check: {hi['first_raw']} B)")
    elapsed = time.monotonic() - started
    print(f"run time {elapsed:.0f} s")
    benchlib.write_results("p2_handoff_bytes", {
        "benchmark": "P2 handoff bytes per check", "machine": info, "interval": INTERVAL, "rows": rows,
        "watch_trace": trace, "goal": "<= 2 KB per check, flat from 1k to 100k", "goal_met_wire": met,
        "run_seconds": round(elapsed, 1),
    })


if __name__ == "__main__":
    main()
