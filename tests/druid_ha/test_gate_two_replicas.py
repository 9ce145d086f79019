"""The handoff gate with two replicas, the second loading late (the ha cluster; DRUID_HA_URL).

historical2 is stopped before the ingestion and started after the gate went green, so for a while every segment
has one replica of the two its load rule asks for. At each moment the test records what Druid shows
(loadstatus plain / ?simple / ?full, the served inventory, sys.segments, a Broker COUNT by native query and by
SQL) beside the verdicts of the sync and the async client's gate. It asserts that the gate is never green while
the Broker cannot read the task's rows, that it is green once it can, and that it does not wait for the second
replica. The table is printed (-s) for docs/druid-contract.md §replicas.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._async_client import AsyncDruidClient
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning.spec import render_spec
from druid_ingest.wire._config import ClusterConfig
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ha.conftest import ROOT, druid_sh, http

pytestmark = [pytest.mark.druid_ha, pytest.mark.timeout(600)]
DAY, NEXT = "2024-02-01", "2024-02-02"
INTERVAL = f"{DAY}T00:00:00.000Z/{NEXT}T00:00:00.000Z"
RETRY = RetryPolicy(max_attempts=10, initial_delay=0.5, max_delay=5, deadline=120)


def _json(status_body: tuple[int, str]) -> Any:
    status, body = status_body
    if status == 204 or not body.strip():
        return f"{status} (empty)"
    try:
        return json.loads(body) if status == 200 else f"{status} {body[:60]}"
    except ValueError:
        return f"{status} {body[:60]}"


def _sql(url: str, query: str) -> Any:
    status, body = http(f"{url}/druid/v2/sql", {"query": query})
    if status != 200:
        return f"{status} {json.loads(body).get('errorMessage', body)[:50] if body.startswith('{') else body[:50]}"
    return json.loads(body)


def druid_view(url: str, ds: str) -> dict[str, Any]:
    """What the Broker, then the Coordinator show for ``ds`` right now (read in this order)."""
    view: dict[str, Any] = {}
    native = _json(http(f"{url}/druid/v2", {"queryType": "timeseries", "dataSource": ds, "intervals": [INTERVAL],
                                            "granularity": "all", "aggregations": [{"type": "count", "name": "n"}]}))
    view["native"] = native[0]["result"]["n"] if isinstance(native, list) and native else 0 if native == [] else native
    sql = _sql(url, f"SELECT COUNT(*) AS n FROM \"{ds}\" WHERE __time >= TIMESTAMP '{DAY} 00:00:00' "
                    f"AND __time < TIMESTAMP '{NEXT} 00:00:00'")
    view["sql"] = sql[0]["n"] if isinstance(sql, list) and sql else sql
    sys_seg = _sql(url, "SELECT COUNT(*) AS segs, SUM(is_available) AS avail, MIN(num_replicas) AS rmin, "
                        f"MAX(num_replicas) AS rmax, MAX(replication_factor) AS rf FROM sys.segments "
                        f"WHERE datasource = '{ds}' AND is_overshadowed = 0")
    view["sys"] = sys_seg[0] if isinstance(sys_seg, list) and sys_seg else sys_seg
    coord = f"{url}/druid/coordinator/v1/datasources/{ds}"
    served = _json(http(f"{coord}/intervals/{INTERVAL.replace('/', '_')}?full"))
    replicas = ([len(seg["servers"]) for segs in served.values() for seg in segs.values()]
                if isinstance(served, dict) else [])
    view["served"] = f"{len(replicas)} segs x {min(replicas, default=0)}-{max(replicas, default=0)}"
    q = f"forceMetadataRefresh=true&interval={INTERVAL.replace('/', '_')}"
    for key, extra in (("loadstatus", ""), ("simple", "&simple"), ("full", "&full")):
        answer = _json(http(f"{coord}/loadstatus?{q}{extra}"))
        if isinstance(answer, dict) and key == "full":
            answer = {tier: counts.get(ds) for tier, counts in answer.items()}
        elif isinstance(answer, dict):
            answer = answer.get(ds)
        view[key] = answer
    return view


def _line(row: dict[str, Any]) -> str:
    if "gate" not in row:
        return f"{row['t']:6.1f}s  {row['phase']}"
    sys_row = row["sys"]
    sys_text = (f"avail {sys_row['avail']}/{sys_row['segs']} replicas {sys_row['rmin']}-{sys_row['rmax']} "
                f"rf {sys_row['rf']}" if isinstance(sys_row, dict) else str(sys_row)[:40])
    return (f"{row['t']:6.1f}s  {row['phase']:<20} sync {row['gate']:<8} async {row['agate']:<8} "
            f"native {row['native']!s:<5} sql {str(row['sql'])[:28]:<28} sys[{sys_text}]  served {row['served']}  "
            f"loadstatus {row['loadstatus']} simple {row['simple']} full {row['full']}")


def test_gate_green_only_when_broker_reads_and_not_waiting_for_second_replica(ha_url: str, tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(tmp_path),
                    "--start", DAY, "--days", "1"], check=True, capture_output=True)
    template = json.loads((ROOT / "dags/specs/events_web.json").read_text())
    ds = f"ha_gate_{int(time.time())}"
    spec = render_spec(template, datasource=ds, intervals=[INTERVAL], input_locations=[str(tmp_path / DAY)])
    config = ClusterConfig(url=ha_url, read_timeout=60)
    rows: list[dict[str, Any]] = []
    t0 = time.monotonic()

    async def async_verdict(target: Any) -> str:
        async with AsyncDruidClient(config, RETRY) as aclient:
            return str((await aclient.check_handoff(target)).state)

    def sample(client: DruidClient, target: Any, phase: str) -> dict[str, Any]:
        # the verdicts first, then what Druid shows: a green verdict must already be readable below it
        row = {"t": round(time.monotonic() - t0, 1), "phase": phase, "gate": client.check_handoff(target).state,
               "agate": asyncio.run(async_verdict(target)), **druid_view(ha_url, ds)}
        rows.append(row)
        return row

    started: list[float] = []
    starter: threading.Thread | None = None
    druid_sh("stop", "historical2")
    rows.append({"t": round(time.monotonic() - t0, 1), "phase": "historical2 stopped"})
    try:
        with DruidClient(config, RETRY) as client:
            outcome = client.ensure_submitted(spec, idempotency_key="ha-gate")
            status = client.wait_for_task(outcome.task_id, timeout=300,
                                          schedule=PollSchedule(initial=0.5, max_delay=1))
            assert status.state == "SUCCESS", status
            rows.append({"t": round(time.monotonic() - t0, 1), "phase": f"task {outcome.task_id} SUCCESS"})
            target = client.handoff_target(outcome.task_id, ds, [INTERVAL], version_ceiling=status.version_ceiling)
            deadline = time.monotonic() + 240
            green_seen = 0
            while time.monotonic() < deadline:  # one replica only: historical2 is down
                row = sample(client, target, "historical2 down")
                green_seen += row["gate"] == "loaded"
                if green_seen >= 3:
                    break
                time.sleep(0.5)
            assert green_seen >= 3, "the gate never went green with one replica"

            def start_h2() -> None:
                druid_sh("start", "historical2")
                started.append(time.monotonic() - t0)

            starter = threading.Thread(target=start_h2)
            starter.start()
            while time.monotonic() < deadline:  # historical2 starting, then loading the second replicas
                row = sample(client, target, "historical2 up" if started else "historical2 starting")
                sys_row = row["sys"]
                if started and isinstance(sys_row, dict) and sys_row.get("rmin") == 2:
                    break
                time.sleep(1.0)
            starter.join()
            settle = time.monotonic() + 30  # ?full counts from the Coordinator's last run: see it reach 0
            while time.monotonic() < settle:
                row = sample(client, target, "two replicas")
                if row["full"] == {"_default_tier": 0}:
                    break
                time.sleep(1.0)
            result = client.wait_for_handoff(target, timeout=10, schedule=PollSchedule(initial=0.5, max_delay=1))
    finally:
        if starter is not None:
            starter.join()
        druid_sh("start", "historical2")  # a no-op when it runs; the next test needs both Historicals
        print(f"\n== gate with two replicas ({ds}); historical2 healthy again at "
              f"{started[0] if started else float('nan'):.1f}s ==")
        for r in rows:
            print(_line(r))
    final = rows[-1]
    assert result.state == "loaded" and result.served == result.expected > 0, result
    assert isinstance(final["sys"], dict) and final["sys"]["rmin"] == 2, final  # both replicas loaded at the end
    n = final["native"]
    assert isinstance(n, int) and n > 0, final
    sampled = [r for r in rows if "gate" in r]
    assert sampled[0]["gate"] == "pending" and sampled[0]["native"] != n, sampled[0]  # not green before it reads
    for r in sampled:
        if r["gate"] == "loaded" or r["agate"] == "loaded":
            assert r["native"] == n, r  # green => the Broker already reads every row of the task's version
    one_replica = [r for r in sampled if r["gate"] == "loaded" and r["served"].endswith("x 1-1")]
    assert one_replica, "the gate should go green on the first replica, without waiting for the second"
