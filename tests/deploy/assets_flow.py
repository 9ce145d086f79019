"""One producer run of ``example_druid_asset_producer`` on the real scheduler, the consumer run its Asset event
queued, and every timestamp that orders them (shared by the Asset test and the browser test)."""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import requests

from tests.days import day_interval

from .helpers import BackgroundProbe, ts

PRODUCER = "example_druid_asset_producer"
CONSUMER = "example_druid_asset_consumer"
DATASOURCE = "asset_events_web"
URI = f"druid://druid_cluster_default/{DATASOURCE}"


def counts(druid, day: str) -> dict[str, Any]:
    """COUNT(*) and SUM(rows) of the day in the Asset's datasource ({} when nothing is served)."""
    t = {"type": "TIMESTAMP", "value": f"{day} 00:00:00"}
    try:
        rows = druid.sql(f'SELECT COUNT(*) AS "rollup_rows", SUM("rows") AS "input_rows" FROM "{DATASOURCE}" '
                         "WHERE __time >= ? AND __time < ? + INTERVAL '1' DAY", [t, t])
    except Exception as exc:  # the datasource does not exist yet: Druid SQL says "Object ... not found"
        if "not found" in str(exc):
            return {}
        raise
    return rows[0] if rows and rows[0].get("rollup_rows") else {}


@dataclass
class QueryableProbe(BackgroundProbe):
    """Polls Druid SQL in a thread: the first time the day's rows are all served (epoch s), from outside Airflow."""

    druid: Any
    day: str
    want: int
    interval: float = 0.5
    first_full: float | None = None
    polls: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _done(self) -> bool:
        return self.first_full is not None

    def _poll(self) -> None:
        if counts(self.druid, self.day).get("rollup_rows") == self.want:
            self.first_full = time.time()
        self.polls += 1


def pick_empty_day(druid, expected: dict[str, dict[str, Any]]) -> str:
    """A day with input files and nothing in the datasource yet (a fresh CI Druid: the first one)."""
    for day in sorted(expected):
        if not counts(druid, day):
            return day
    raise AssertionError(f"every day of {sorted(expected)} is already in {DATASOURCE}: drop the datasource "
                         "(or use a fresh Druid) to re-run the Asset proof")


def gate_passed_at(api, run_id: str) -> float:
    """The ingest task log's "Data of Druid task ... is queryable" line: when the handoff gate passed."""
    tis = api.task_instances(PRODUCER, run_id)
    tries = tis["ingest"]["try_number"]
    for attempt in range(tries, 0, -1):
        body = api.get(f"/dags/{PRODUCER}/dagRuns/{quote(run_id, safe='')}/taskInstances/ingest/logs/{attempt}")
        for line in body.get("content") or []:
            if isinstance(line, dict) and "is queryable" in str(line.get("event", "")):
                return ts(line["timestamp"])
    raise AssertionError(f"no 'is queryable' line in the logs of {PRODUCER}/{run_id}/ingest")


def wait_for(what: str, timeout: float, probe) -> Any:
    """Poll ``probe`` until it returns something; a slow or refused API call (a busy api-server) is one miss."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            value = probe()
        except requests.RequestException as exc:
            value, last = None, exc
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not after {timeout:.0f}s (last API error: {last})"
        time.sleep(1)


def run_asset_pipeline(api, druid, expected: dict[str, dict[str, Any]], key: str) -> dict[str, Any]:
    """Trigger the producer for an empty day; wait for it and the consumer run; return what happened, timed."""
    day = pick_empty_day(druid, expected)
    want = expected[day]
    before = counts(druid, day)
    for dag_id in (CONSUMER, PRODUCER):  # the consumer first: events of a paused consumer queue no run
        api.send("PATCH", f"/dags/{dag_id}", {"is_paused": False})
    known = {r["dag_run_id"] for r in api.dag_runs(CONSUMER)}
    start = dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc)
    run_id = f"asset_e2e_{key}"
    t0 = time.time()
    with QueryableProbe(druid, day, want["rollup_rows"]) as probe:
        api.send("POST", f"/dags/{PRODUCER}/dagRuns", {
            "dag_run_id": run_id, "logical_date": dt.datetime.now(dt.timezone.utc).isoformat(),
            "data_interval_start": start.isoformat(), "data_interval_end": (start + dt.timedelta(days=1)).isoformat(),
            "conf": {"idempotency_key": key},
        })

        def producer_done() -> dict[str, Any] | None:
            run = api.get(f"/dags/{PRODUCER}/dagRuns/{run_id}")
            return run if run["state"] in ("success", "failed") else None

        producer = wait_for(f"{PRODUCER} run {run_id}", 240, producer_done)
        assert producer["state"] == "success", api.task_instances(PRODUCER, run_id)

        def consumer_done() -> list[dict[str, Any]] | None:
            ours = []
            for run in api.dag_runs(CONSUMER):
                if run["dag_run_id"] in known:
                    continue
                events = api.get(f"/dags/{CONSUMER}/dagRuns/{quote(run['dag_run_id'], safe='')}"
                                 "/upstreamAssetEvents")["asset_events"]
                if any(e.get("source_run_id") == run_id for e in events):
                    ours.append({"run": run, "events": events})
            return ours if ours and all(o["run"]["state"] in ("success", "failed") for o in ours) else None

        ours = wait_for(f"the {CONSUMER} run queued by {run_id}'s event", 120, consumer_done)
        consumer = ours[0]
    ingest = api.task_instances(PRODUCER, run_id)["ingest"]
    consumer_ti = api.task_instances(CONSUMER, consumer["run"]["dag_run_id"])["count_loaded_interval"]
    event = next(e for e in consumer["events"] if e.get("source_run_id") == run_id)
    return {
        "day": day, "interval": day_interval(day), "want": want, "before": before, "run_id": run_id,
        "triggered": t0, "probe_first_full": probe.first_full, "probe_polls": probe.polls,
        "gate_passed": gate_passed_at(api, run_id),
        "ingest": ingest, "producer": producer, "event": event, "consumer": consumer["run"],
        "consumer_ti": consumer_ti, "consumer_runs": [o["run"] for o in ours],
        "consumer_result": api.xcom(CONSUMER, consumer["run"]["dag_run_id"], "count_loaded_interval"),
        "druid_task_id": api.xcom(PRODUCER, run_id, "ingest", key="druid_task_id"),
        "druid_task_url": api.xcom(PRODUCER, run_id, "ingest", key="druid_task_url"),
        "after": counts(druid, day),
    }


def timeline(r: dict[str, Any]) -> list[tuple[str, float]]:
    """The moments that order the proof, oldest first (for the issue note)."""
    moments = [
        ("producer run triggered (REST POST dagRuns)", r["triggered"]),
        ("producer ingest task started", ts(r["ingest"]["start_date"])),
        ("Druid SQL (probe, outside Airflow): all rows of the day served", r["probe_first_full"] or 0.0),
        ("handoff gate passed (ingest log: 'is queryable')", r["gate_passed"]),
        ("producer ingest task ended (success)", ts(r["ingest"]["end_date"])),
        ("Asset event registered", ts(r["event"]["timestamp"])),
        ("consumer run queued", ts(r["consumer"]["queued_at"])),
        ("consumer run started", ts(r["consumer"]["start_date"])),
        ("consumer task started", ts(r["consumer_ti"]["start_date"])),
        ("consumer's Druid SQL count answered", float((r["consumer_result"] or [{}])[0].get("queried_at", 0.0))),
        ("consumer run ended", ts(r["consumer"]["end_date"])),
    ]
    return sorted(moments, key=lambda m: m[1])


def print_timeline(r: dict[str, Any]) -> None:
    print(f"\nAsset proof: {URI} day {r['day']} (Druid task {r['druid_task_id']}), SQL before={r['before']} "
          f"after={r['after']} consumer saw={r['consumer_result']}")
    for name, at in timeline(r):
        stamp = dt.datetime.fromtimestamp(at, dt.timezone.utc).isoformat(timespec="milliseconds")
        print(f"  {stamp}  {at - r['triggered']:+8.2f}s  {name}")
