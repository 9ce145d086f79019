"""``druid-ingest auto-compaction pause|resume`` against the fake Druid: the record through a file, the recovery
without one, bad input refused before any HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from druid_ingest.cli import main
from druid_ingest.testing import FakeDruid

DS = "events_cli_ac"


def test_pause_then_resume_through_a_record_file(fake_druid: FakeDruid, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    original = fake_druid.auto_compaction.put_config({"dataSource": DS, "skipOffsetFromLatest": "P3D"})
    record = tmp_path / "pause.json"
    assert main(["auto-compaction", "pause", DS, "--url", fake_druid.url, "--record-file", str(record),
                 "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(record.read_text()) and printed["config"] == original
    assert DS not in fake_druid.auto_compaction.configs
    assert main(["auto-compaction", "resume", DS, "--url", fake_druid.url, "--record-file", str(record)]) == 0
    assert "resumed" in capsys.readouterr().out
    assert fake_druid.auto_compaction.configs[DS] == original


def test_resume_without_a_record_recovers_from_the_audit_history(
        fake_druid: FakeDruid, capsys: pytest.CaptureFixture[str]) -> None:
    original = fake_druid.auto_compaction.put_config({"dataSource": DS})
    assert main(["auto-compaction", "pause", DS, "--url", fake_druid.url]) == 0
    assert main(["auto-compaction", "resume", DS, "--url", fake_druid.url, "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out[out.index("{\n"):])["outcome"] == "resumed"
    assert fake_druid.auto_compaction.configs[DS] == original


def test_a_bad_record_file_fails_naming_it(fake_druid: FakeDruid, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"datasource": DS, "paused": "compaction config"}))
    assert main(["auto-compaction", "resume", DS, "--url", fake_druid.url, "--record-file", str(bad)]) == 1
    assert "record.config" in capsys.readouterr().err
    assert main(["auto-compaction", "resume", DS, "--url", fake_druid.url, "--record-file",
                 str(tmp_path / "missing.json")]) == 1
    assert "--record-file" in capsys.readouterr().err
    assert fake_druid.requests == []
