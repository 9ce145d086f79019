"""Drop and kill on the Plan seam, decided by a real Druid 33: a drop (``markUnused``) is green only once the Broker
no longer serves the day; the kill task then deletes the day's segment files from deep storage; a retry adopts
the kill; a day still used is never touched; a kill queued behind an ingestion's lock names it."""

from __future__ import annotations

import http.server
import json
import os
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidNothingToRestoreError, DruidUsageError
from druid_ingest.planning import build_drop_plan, build_kill_plan, build_restore_plan

from tests.net import free_port

from .test_real_druid import POLL, build, day_counts, ingest

pytestmark = pytest.mark.timeout(600)

DS = "e2e_kill"
DROPPED, KEPT = "2026-11-04", "2026-11-05"
ROOT = Path(__file__).resolve().parents[2]


def deep_storage(day: str) -> list[Path]:
    """The day's segments in the dev Druid's local deep storage (``<var>/segments/<datasource>/<interval>/<version>/
    <partition>/index/``), one ``version.bin`` each."""
    var = Path(os.environ.get("DRUID_VAR_DIR") or ROOT / "dev/druid/var")
    return sorted((var / "segments" / DS).glob(f"{day}T*/**/version.bin"))


def test_a_kill_after_a_drop_deletes_the_files_and_never_touches_a_used_day(
        real: DruidClient, druid_url: str, spec_template, events_dir, expected) -> None:
    run = str(time.time_ns())  # a fresh ingestion per run: an earlier run's day was dropped and killed
    for day in (DROPPED, KEPT):
        _outcome, _status, _first, result = ingest(real, build(spec_template, events_dir, day, DS),
                                                   idempotency_key=run)
        assert result.state == "loaded", result
    assert deep_storage(DROPPED) and deep_storage(KEPT)
    interval = f"{DROPPED}T00:00:00.000Z/{KEPT}T00:00:00.000Z"
    lines: list[str] = []
    dropped = real.segment_write(build_drop_plan(DS, interval), timeout=300, schedule=POLL, on_progress=lines.append)
    assert dropped.marked >= 1 and lines, (dropped, lines)  # it waited while the Coordinator unloaded the day
    assert day_counts(real, DS, DROPPED).get("rows") in (None, 0)  # green: the Broker no longer serves the day
    again = real.segment_write(build_drop_plan(DS, interval), timeout=60, schedule=POLL)
    assert again.marked == 0  # a retry: no change

    plan = build_kill_plan(DS, interval, idempotency_key=run)
    first = real.ensure_submitted(plan)
    again = real.ensure_submitted(plan)  # a retried or cleared task: the same kill, never a second one
    assert (first.action, again.action, again.task_id) == ("submitted", "adopted", first.task_id)
    status = real.wait_for_task(first.task_id, timeout=300, schedule=POLL)
    assert status.state == "SUCCESS", status
    assert deep_storage(DROPPED) == []  # deleted for good
    assert deep_storage(KEPT) and day_counts(real, DS, KEPT) == expected[KEPT]  # the used day untouched

    # a restore of the killed day has nothing to bring back: refused, never green over an empty day
    with pytest.raises(DruidNothingToRestoreError, match="allow_empty=True") as refused:
        real.segment_write(build_restore_plan(DS, interval), timeout=60, schedule=POLL)
    assert (refused.value.marked, refused.value.interval) == (0, interval), refused.value


class SlowRows(http.server.BaseHTTPRequestHandler):
    """An input a line per second: the ingestion reading it holds its day's lock for as long as it reads."""

    lines: list[bytes] = []

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        for line in self.lines:
            self.wfile.write(line)
            self.wfile.flush()
            time.sleep(1)

    def log_message(self, *args: object) -> None:
        pass


def test_a_kill_queued_behind_an_ingestion_names_the_lock_holder(real: DruidClient, spec_template,
                                                                   events_dir) -> None:
    ds, day = f"e2e_kill_lock_{time.time_ns()}", "2026-11-06"
    SlowRows.lines = (events_dir / "2026-11-02" / "events.json").read_bytes().splitlines(keepends=True)[:30]
    SlowRows.lines = [line.replace(b"2026-11-02T", f"{day}T".encode()) for line in SlowRows.lines]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), SlowRows)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        spec = build(spec_template, events_dir, day, ds)
        spec["spec"]["ioConfig"]["inputSource"] = {"type": "http",
                                                    "uris": [f"http://127.0.0.1:{server.server_port}/rows.json"]}
        spec["spec"]["tuningConfig"].update(forceGuaranteedRollup=False, partitionsSpec={"type": "dynamic"},
                                            maxNumConcurrentSubTasks=1)
        ingestion = real.ensure_submitted(spec).task_id
        deadline = time.monotonic() + 120
        while real.status(ingestion).runner_state != "RUNNING":  # it holds the day's lock once it runs
            assert time.monotonic() < deadline, real.status(ingestion)
            time.sleep(0.5)

        lines: list[str] = []
        kill = real.ensure_submitted(build_kill_plan(ds, f"{day}/P1D")).task_id
        status = real.wait_for_task(kill, timeout=300, schedule=POLL, on_progress=lambda p: lines.append(p.line()))
        assert status.state == "SUCCESS", status
        named = [line for line in lines if f"waiting for the time-chunk lock held by task {ingestion} (" in line]
        assert named and f"Druid task {kill} WAITING: " in named[0], lines
        assert real.wait_for_task(ingestion, timeout=300, schedule=POLL).state == "SUCCESS"
    finally:
        server.shutdown()


def test_a_drop_that_would_uncover_an_older_version_is_refused_and_marks_nothing(
        real: DruidClient, druid_url: str, spec_template, events_dir, expected) -> None:
    """Druid 33: a two-day segment (segmentGranularity ALL over two days) under a newer DAY replace of its first
    day. markUnused of that day would leave the two-day segment (not inside the day), and queries would read its
    older rows there again: the drop refuses before marking anything, and the day still reads the newer rows."""
    ds, first, second = f"e2e_drop_uncover_{time.time_ns()}", "2026-11-02", "2026-11-03"
    both = build(spec_template, events_dir, first, ds)
    both["spec"]["dataSchema"]["granularitySpec"].update(segmentGranularity="ALL", intervals=[f"{first}/2026-11-04"])
    both["spec"]["ioConfig"]["inputSource"]["baseDir"] = str(events_dir)  # every day's folder: Druid keeps two
    _o, _s, _f, older = ingest(real, both)
    assert older.state == "loaded", older
    _o, _s, _f, newer = ingest(real, build(spec_template, events_dir, first, ds))
    assert newer.state == "loaded" and newer.version, newer
    before = used_ids(druid_url, ds)
    with pytest.raises(DruidUsageError, match="would leave 1 segment") as refused:
        real.segment_write(build_drop_plan(ds, f"{first}/{second}"), timeout=60, schedule=POLL)
    assert "2026-11-02T00:00:00.000Z_2026-11-04T00:00:00.000Z" in str(refused.value), refused.value
    assert used_ids(druid_url, ds) == before and len(before) > 1  # nothing was marked unused
    assert day_counts(real, ds, first) == expected[first]


def used_ids(druid_url: str, datasource: str) -> set[str]:
    """The datasource's used segments, read from the metadata store (the Coordinator, through the Router)."""
    request = urllib.request.Request(
        f"{druid_url}/druid/coordinator/v1/metadata/datasources/{datasource}/segments?full",
        data=json.dumps(["2026-10-01/2026-12-01"]).encode(), method="POST",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return {s["identifier"] for s in json.loads(answer.read() or b"[]")}
