"""A gate waiting while no Historical runs says why (the ha cluster; DRUID_HA_URL).

Both Historicals are stopped before the ingestion: the task succeeds (the Indexer publishes to deep storage and
the metadata store), but nothing can load its segments. The gate's pending line must say that no Historical is
announced (Druid's own answer: ``/servers?simple`` lists none) from its second "will it ever load?" look on (60 s
after the first), not only "24 of 24 not served yet"; once the Historicals are back the same target goes green.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidWaitTimeoutError
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning.spec import render_spec
from druid_ingest.wire._config import ClusterConfig

from tests.druid_ha.conftest import ROOT, druid_sh, http

pytestmark = [pytest.mark.druid_ha, pytest.mark.timeout(600)]
DAY, NEXT = "2024-03-01", "2024-03-02"
INTERVAL = f"{DAY}T00:00:00.000Z/{NEXT}T00:00:00.000Z"
FAST = PollSchedule(initial=0.5, max_delay=1)
NOTE = "no Historical is announced to the Coordinator"


def test_a_gate_waiting_with_no_historical_says_so(ha_url: str, tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(tmp_path),
                    "--start", DAY, "--days", "1"], check=True, capture_output=True)
    ds = f"ha_nohist_{int(time.time())}"
    spec = render_spec(json.loads((ROOT / "dags/specs/events_web.json").read_text()), datasource=ds,
                       intervals=[INTERVAL], input_locations=[str(tmp_path / DAY)])
    seen: list = []
    druid_sh("stop", "historical", "historical2")
    try:
        status, servers = http(f"{ha_url}/druid/coordinator/v1/servers?simple")
        assert status == 200 and '"historical"' not in servers, servers  # what Druid itself shows
        with DruidClient(ClusterConfig(url=ha_url, read_timeout=60)) as client:
            submitted = client.ensure_submitted(spec)
            task = client.wait_for_task(submitted.task_id, timeout=300, schedule=FAST)
            assert task.state == "SUCCESS", task
            target = client.handoff_target(submitted.task_id, ds, [INTERVAL], version_ceiling=task.version_ceiling)
            with pytest.raises(DruidWaitTimeoutError) as timed_out:
                client.wait_for_handoff(target, timeout=75, schedule=FAST, on_progress=seen.append)
    finally:
        druid_sh("start", "historical", "historical2")
    print("\n".join(f"  {r.state} {r.detail}" for r in seen))
    assert NOTE in str(timed_out.value), str(timed_out.value)
    assert all(r.state == "pending" and r.served == 0 for r in seen) and NOTE in seen[-1].detail
    with DruidClient(ClusterConfig(url=ha_url, read_timeout=60)) as client:
        result = client.wait_for_handoff(target, timeout=240, schedule=FAST)
    assert result.state == "loaded" and NOTE not in result.detail, result
