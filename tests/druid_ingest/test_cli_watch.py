"""``druid-ingest watch``: one look with ``--once``, its cursor kept in a file between runs."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from druid_ingest.cli import main
from druid_ingest.clients import DruidClient
from druid_ingest.testing import FakeDruid
from druid_ingest.wire import ClusterConfig

from tests.druid_ingest.sample_specs import day_spec

D1 = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"


@pytest.fixture()
def fake(fake_druid_factory) -> FakeDruid:
    return fake_druid_factory(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0)


def ingest_day(fake: FakeDruid, day: str = "2026-11-01") -> str:
    with DruidClient(ClusterConfig(url=fake.url)) as client:
        return str(client.ingest(day_spec(day), task_timeout=20, handoff_timeout=20).handoff.version)


def test_once_with_a_cursor_file_twice_prints_the_change_then_nothing(fake: FakeDruid, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    version = ingest_day(fake)
    cursor = tmp_path / "cursor.json"
    argv = ["watch", "events_web", "--url", fake.url, "--cursor-file", str(cursor), "--once", "--json"]
    assert main(argv) == 0
    line = capsys.readouterr().out.strip()
    assert json.loads(line)["changes"] == [{"kind": "served", "interval": D1, "version": version,
                                            "writer": "ingestion", "replaced": []}]
    assert json.loads(cursor.read_text())["chunks"][0][2] == version
    assert main(argv) == 0
    assert capsys.readouterr().out == ""  # the cursor kept it: nothing new


def test_human_lines_and_from_now(fake: FakeDruid, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = ingest_day(fake)
    cursor = tmp_path / "cursor.json"
    argv = ["watch", "events_web", "--url", fake.url, "--cursor-file", str(cursor), "--once"]
    assert main([*argv, "--from-now"]) == 0
    assert capsys.readouterr().out == ""  # what was served before the watch started is not news
    second = ingest_day(fake, "2026-11-02")
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out == f"served 2026-11-02T00:00:00.000Z/2026-11-03T00:00:00.000Z: version {second} by ingestion\n"
    assert first not in out


def test_a_malformed_cursor_file_is_refused_and_kept(fake: FakeDruid, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    cursor = tmp_path / "cursor.json"
    cursor.write_text('{"format": 1, "datasource": "events_web", "window": "soon"}')
    assert main(["watch", "events_web", "--url", fake.url, "--cursor-file", str(cursor), "--once"]) == 1
    assert "error: malformed watch cursor: window is 'soon', expected an ISO interval" in capsys.readouterr().err
    assert cursor.read_text().endswith('"soon"}') and not fake.requests


def test_the_loop_outlives_an_outage_and_looks_again(fake: FakeDruid, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from druid_ingest.testing import Fault

    version = ingest_day(fake)
    fake.add_fault(Fault(path="/intervals/", status=500, times=3))  # every attempt of the first look
    naps: list[float] = []

    def nap(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 2:
            raise SystemExit(0)

    monkeypatch.setattr("druid_ingest.cli.time", SimpleNamespace(sleep=nap))  # the loop's pause only
    with pytest.raises(SystemExit):
        main(["watch", "events_web", "--url", fake.url, "--every", "5"])
    out, err = capsys.readouterr()
    assert "warning: " in err and "looking again in 5s" in err
    assert out == f"served {D1}: version {version} by ingestion\n" and naps == [5.0, 5.0]
