"""A worker killed right after its task published (issue 27 item 1), on the ha cluster's real Druid 33.

The Indexer is SIGKILLed the moment its log says ``Published [``: the publish committed, the task never reported
SUCCESS, and the Overlord marks it FAILED ("This task disappeared on the worker ..."). Then, as a retry does:
- an append must NOT run again (it would add its rows twice): DruidMayHavePublishedError, no ``_r1``, SQL = rows
  sent;
- a replace goes on as ``_r1`` (its newer version overshadows the failed attempt's): SQL = rows sent.
Runs on the ha cluster (its own Indexer; the shared dev cluster keeps its worker). The Indexer is started again
after each kill.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidMayHavePublishedError
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.planning.spec import render_spec
from druid_ingest.wire._config import ClusterConfig

from tests.druid_ha.conftest import ROOT, druid_sh

pytestmark = [pytest.mark.druid_ha, pytest.mark.timeout(900)]
POLL = PollSchedule(initial=0.5, max_delay=2, multiplier=1.5)
DAY, NEXT = "2024-02-01", "2024-02-02"


def _indexer_pid(var_dir: Path) -> int:
    return int((var_dir / "run" / "indexer.pid").read_text())


def _kill_on_publish(log: Path, pid: int, task_id: list[str], done: threading.Event, seen: list[str]) -> None:
    """Follow the Indexer's log from its current end; SIGKILL it at the first ``Published [`` of our task."""
    with log.open("rb") as f:
        f.seek(0, os.SEEK_END)
        buffer = b""
        deadline = time.monotonic() + 300
        while not done.is_set() and time.monotonic() < deadline:
            chunk = f.read()
            if not chunk:
                time.sleep(0.002)
                continue
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                text = line.decode(errors="replace")
                if "Published [" in text and task_id and task_id[0] in text:
                    os.kill(pid, signal.SIGKILL)
                    seen.append(text.strip()[:300])
                    done.set()
                    return


def _rows(client: DruidClient, ds: str) -> int:
    """Input rows held (the spec rolls up; its count metric is ``rows``)."""
    try:
        got = client.sql(f'SELECT SUM("rows") AS n FROM "{ds}"')
    except Exception:  # the table is not served yet
        return 0
    return int(got[0]["n"] or 0) if got else 0


def _wait_rows(client: DruidClient, ds: str, want: int, timeout: float = 240) -> int:
    deadline = time.monotonic() + timeout
    got = _rows(client, ds)
    while got != want and time.monotonic() < deadline:
        time.sleep(1)
        got = _rows(client, ds)
    return got


def _task_ids(client: DruidClient, ds: str) -> list[str]:
    rows = client.sql("SELECT task_id FROM sys.tasks WHERE datasource = ? AND task_id LIKE 'ingest%'",
                      [{"type": "VARCHAR", "value": ds}])
    return sorted(r["task_id"] for r in rows if not r["task_id"].startswith("ingest_partial"))


def _first_attempt_killed_after_publish(client: DruidClient, spec: dict[str, Any], var_dir: Path) -> str:
    """Submit, SIGKILL the Indexer at its publish line, restart it; the task id (FAILED by then)."""
    task_id: list[str] = []
    done, seen = threading.Event(), []
    watcher = threading.Thread(target=_kill_on_publish, daemon=True,
                               args=(var_dir / "log" / "indexer.log", _indexer_pid(var_dir), task_id, done, seen))
    watcher.start()
    outcome = client.ensure_submitted(spec)
    task_id.append(outcome.task_id)
    done.wait(300)
    done.set()
    watcher.join(5)
    # the worker comes back without the task: the Overlord marks it FAILED ("disappeared on the worker"); left
    # down, it would wait druid.indexer.runner.taskCleanupTimeout (15 min) first
    druid_sh("start", "indexer")
    status = client.wait_for_task(outcome.task_id, timeout=300, schedule=POLL)
    print(f"\n[ha] {outcome.task_id}: killed at {seen[0] if seen else '(no publish line seen)'}; "
          f"status {status.state}: {status.error_msg}")
    assert seen, "the Indexer never logged the publish of our task"
    assert status.state == "FAILED", status  # the publish committed; the status never arrived
    return outcome.task_id


@pytest.fixture()
def events(tmp_path: Path) -> tuple[Path, int]:
    subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(tmp_path),
                    "--start", DAY, "--days", "1"], check=True, capture_output=True)
    expected = subprocess.run([sys.executable, str(ROOT / "dags/data/generate_events.py"), "--out", str(tmp_path),
                               "--start", DAY, "--days", "1", "--expect"], check=True, capture_output=True,
                              text=True).stdout
    return tmp_path, int(json.loads(expected)[DAY]["rows"])


def _spec(events: Path, ds: str, append: bool) -> dict[str, Any]:
    template = json.loads((ROOT / "dags/specs/events_web.json").read_text())
    spec = render_spec(template, datasource=ds, intervals=[f"{DAY}T00:00:00Z/{NEXT}T00:00:00Z"],
                       input_locations=[str(events / DAY)])
    spec = copy.deepcopy(spec)
    spec["spec"]["ioConfig"].update(appendToExisting=append, dropExisting=not append)
    spec["spec"]["tuningConfig"].update(forceGuaranteedRollup=False, partitionsSpec={"type": "dynamic"})
    return spec


def test_a_retried_append_after_a_publish_kill_does_not_ingest_twice(ha_url: str, ha_var_dir: Path,
                                                                     events: tuple[Path, int]) -> None:
    folder, sent = events
    ds = f"ha_append_{int(time.time())}"
    with DruidClient(ClusterConfig(url=ha_url, read_timeout=60)) as client:
        failed = _first_attempt_killed_after_publish(client, _spec(folder, ds, append=True), ha_var_dir)
        assert _wait_rows(client, ds, sent) == sent  # the failed attempt's rows are served
        with pytest.raises(DruidMayHavePublishedError) as info:  # the retry
            client.ensure_submitted(_spec(folder, ds, append=True))
        print(f"[ha] the retry, as a user sees it:\n{info.value}")
        assert info.value.task_id == failed and f'FROM "{ds}"' in str(info.value)
        assert _task_ids(client, ds) == [failed]  # no _r1
        time.sleep(5)
        assert _rows(client, ds) == sent  # not doubled


def test_a_retried_replace_after_a_publish_kill_goes_on_as_r1(ha_url: str, ha_var_dir: Path,
                                                              events: tuple[Path, int]) -> None:
    folder, sent = events
    ds = f"ha_replace_{int(time.time())}"
    with DruidClient(ClusterConfig(url=ha_url, read_timeout=60)) as client:
        failed = _first_attempt_killed_after_publish(client, _spec(folder, ds, append=False), ha_var_dir)
        result = client.ingest(_spec(folder, ds, append=False), task_timeout=600, handoff_timeout=300)
        print(f"[ha] the retry: {result.submit.previous_attempt}")
        assert result.submit.task_id == failed + "_r1" and result.submit.action == "submitted"
        assert result.handoff is not None and result.handoff.state == "loaded", result.handoff
        assert _wait_rows(client, ds, sent) == sent
