"""The operator's CLI: pre-flight validation offline, pool sizing and timeouts from a (fake) cluster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests
from druid_ingest.api._models import TaskStatus
from druid_ingest.cli import main
from druid_ingest.ops._capacity import pool_size
from druid_ingest.ops._history import ingestion_durations, percentile
from druid_ingest.testing import FakeDruid, TaskPlan

SPEC = str(Path(__file__).resolve().parents[2] / "dags/specs/events_web.json")
DAY = "2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"


def test_validate_ok_prints_slots_and_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", SPEC, "--interval", DAY, "--input", "/data/2026-11-01"]) == 0
    out = capsys.readouterr().out
    assert "task slots at peak: 3" in out and "task id: ingest_events_web_20261101-20261102_" in out


def test_validate_reports_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = json.loads(Path(SPEC).read_text())
    spec["spec"]["ioConfig"]["dropExisitng"] = True
    spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = ["2026-11-02/2026-11-01"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spec))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "spec.ioConfig.dropExisitng" in out and "dropExisting" in out
    assert "spec.dataSchema.granularitySpec.intervals" in out


def test_pool_from_capacity(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeDruid(worker_capacity=8) as fake:
        assert main(["pool", "--url", fake.url, "--spec", SPEC, "--headroom", "1"]) == 0
    out = capsys.readouterr().out
    assert "task slots: 8" in out and "pool: 2 concurrent ingestion(s) x 3 slot(s) = 6 slots" in out
    assert 'airflow pools set druid_ingest 6 "Druid task slots" --include-deferred' in out


@pytest.mark.parametrize(("config", "warned"), [("", True), ("storage:\n  postgres:\n    postgres_url: x\n", False)])
def test_dagster_pool_warns_on_sqlite_storage(tmp_path: Path, monkeypatch, capsys, config: str, warned: bool) -> None:
    """SQLite storage can grant one slot to two steps claiming together; a Postgres instance is not warned."""
    (tmp_path / "dagster.yaml").write_text(config)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    with FakeDruid(worker_capacity=8) as fake:
        assert main(["pool", "--url", fake.url, "--spec", SPEC, "--for", "dagster"]) == 0
    out = capsys.readouterr().out
    assert "dagster instance concurrency set druid_ingest 2" in out
    assert ("warning: $DAGSTER_HOME/dagster.yaml names no postgres or mysql storage" in out) is warned


def test_timeouts_from_history_with_env_credentials(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DRUID_USER", "admin")
    monkeypatch.setenv("DRUID_PASSWORD", "cli-s3cret")
    with FakeDruid(task_duration=0.05, auth={"admin": ("cli-s3cret", "write")}) as fake:
        for i, duration in enumerate((0.1, 0.2, 0.3)):
            fake.plan_next_task(TaskPlan(duration=duration))
            spec = json.loads(Path(SPEC).read_text())
            spec["id"] = f"hist_{i}"
            spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] = [DAY]
            requests.post(f"{fake.url}/druid/indexer/v1/task", json=spec, auth=("admin", "cli-s3cret"), timeout=5)
        fake.plan_next_task(TaskPlan(duration=0.05))
        import time

        time.sleep(1.0)
        assert main(["timeouts", "--url", fake.url, "--datasource", "events_web"]) == 0
    out = capsys.readouterr().out
    assert "3 successful ingestion(s) (subtasks excluded)" in out and '"task_timeout": 600' in out
    assert "cli-s3cret" not in out


def test_timeouts_without_history_fails_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeDruid() as fake:
        assert main(["timeouts", "--url", fake.url, "--datasource", "nothing_here"]) == 1
    assert "no completed SUCCESS ingestion tasks" in capsys.readouterr().out


def test_unreachable_cluster_is_an_error_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pool", "--url", "http://127.0.0.1:9"]) == 1
    assert "error:" in capsys.readouterr().err


def test_sizing_math() -> None:
    assert pool_size(40, 5) == 8  # a 40-slot cluster, k=4: 8 concurrent ingestions
    assert pool_size(4, 5) == 0 and pool_size(10, 3, headroom=2) == 2  # 0: the cluster cannot serve one
    assert percentile([1, 2, 3, 4, 100], 95) == 100 and percentile([5], 50) == 5


def _five_slot_spec(tmp_path: Path) -> str:
    spec = json.loads(Path(SPEC).read_text())
    spec["spec"]["tuningConfig"]["maxNumConcurrentSubTasks"] = 4  # the guide's own setting: 5 slots at peak
    path = tmp_path / "five.json"
    path.write_text(json.dumps(spec))
    return str(path)


def test_pool_never_recommends_a_pool_the_cluster_cannot_serve(tmp_path: Path, capsys) -> None:
    with FakeDruid(worker_capacity=4) as fake:
        assert main(["pool", "--url", fake.url, "--spec", _five_slot_spec(tmp_path)]) == 1
        out = capsys.readouterr().out
        assert "needs 5 task slots at peak, but the cluster offers 4" in out
        assert "maxNumConcurrentSubTasks to 3" in out and "airflow pools set" not in out
        assert main(["pool", "--url", fake.url, "--spec", SPEC, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["concurrent_ingestions"] == 1 and data["pool_slots"] == 3 and data["applied"] is False
    assert data["command"][:4] == ["airflow", "pools", "set", "druid_ingest"]


def test_timeouts_count_ingestions_not_their_subtasks(capsys) -> None:
    def task(task_id: str, kind: str, seconds: float, group: str | None = None) -> TaskStatus:
        return TaskStatus(task_id, "SUCCESS", duration_ms=int(seconds * 1000), task_type=kind,
                          group_id=group or task_id)

    history = [task("ingest_a", "index_parallel", 23.7), task("ingest_b", "index_parallel", 0.6),
               *[task(f"partial_{i}", "partial_range_index_generate", 0.2, "ingest_a") for i in range(40)],
               task("sub_1", "single_phase_sub_task", 11.0, "ingest_b")]
    assert sorted(ingestion_durations(history)) == [0.6, 23.7]
    with FakeDruid() as fake:
        main(["timeouts", "--url", fake.url, "--datasource", "events_web", "--json"])
        asked = [r.query for r in fake.requests if r.path == "/druid/indexer/v1/tasks"]
    # one read per ingestion type, each without ``type=``: Druid applies ``max`` first, and a parallel run's
    # subtasks would crowd its runs out of the page; the runs of the type are kept from the answer
    assert [(q.get("type"), q.get("max"), q.get("createdTimeInterval")) for q in asked] == [
        (None, "100", "1970-01-01_3000-01-01")] * 2
    assert "error" in json.loads(capsys.readouterr().out)


def test_validate_json_and_python_dash_m(capsys) -> None:
    import subprocess
    import sys

    assert main(["validate", SPEC, "--interval", DAY, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["peak_slots"] == 3 and data["base_task_id"].startswith("ingest_events_web_")
    proc = subprocess.run([sys.executable, "-m", "airflow_provider_druid_ingest", "validate", SPEC, "--json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["ok"] is True


BERLIN_DST_DAY = "2026-10-24T22:00:00Z/2026-10-25T23:00:00Z"


def _day_segments_spec(tmp_path: Path) -> str:
    spec = json.loads(Path(SPEC).read_text())
    spec["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] = "DAY"
    path = tmp_path / "day.json"
    path.write_text(json.dumps(spec))
    return str(path)


def test_validate_refuses_an_unaligned_replace_and_names_the_opt_in(tmp_path: Path, capsys) -> None:
    assert main(["validate", SPEC, "--interval", BERLIN_DST_DAY]) == 0  # HOUR segments divide the Berlin day
    capsys.readouterr()
    assert main(["validate", _day_segments_spec(tmp_path), "--interval", BERLIN_DST_DAY]) == 1
    out = capsys.readouterr().out
    assert "error: spec.dataSchema.granularitySpec.intervals[0]: is not aligned to segmentGranularity" in out
    assert "2026-10-24/2026-10-25 and 2026-10-25/2026-10-26" in out and "23 hours" in out
    assert "--allow-unaligned" in out


def test_validate_allow_unaligned_warns_and_exits_zero(tmp_path: Path, capsys) -> None:
    args = ["validate", _day_segments_spec(tmp_path), "--interval", BERLIN_DST_DAY, "--allow-unaligned", "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and any("not aligned" in w and "23 hours" in w for w in data["warnings"])


def test_validate_refusal_names_the_preflight_hatch_and_warn_accepts(tmp_path: Path, capsys) -> None:
    spec = json.loads(Path(SPEC).read_text())
    spec["spec"]["ioConfig"]["dropExisitng"] = True  # Druid ignores it: pre-flight refuses, the hatch submits
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(spec))
    assert main(["validate", str(path), "--interval", DAY]) == 1
    assert "--preflight warn" in capsys.readouterr().out.splitlines()[-1]
    assert main(["validate", str(path), "--interval", DAY, "--preflight", "warn", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and any("spec.ioConfig.dropExisitng" in w for w in data["warnings"])


def test_compact_is_served_then_a_rerun_adopts_and_a_bad_interval_never_reaches_druid(capsys) -> None:
    from druid_ingest.clients import DruidClient
    from druid_ingest.wire import ClusterConfig

    from tests.druid_ingest.sample_specs import day_spec

    with FakeDruid(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0) as fake:
        with DruidClient(ClusterConfig(url=fake.url)) as client:
            client.ingest(day_spec(), task_timeout=20, handoff_timeout=20)
        args = ["compact", "--url", fake.url, "--datasource", "events_web", "--interval", "2026-11-01/2026-12-01",
                "--granularity", "MONTH", "--task-timeout", "20", "--handoff-timeout", "20"]
        assert main([*args, "--json"]) == 0
        first = json.loads(capsys.readouterr().out)
        assert first["action"] == "submitted" and first["state"] == "SUCCESS" and first["handoff"] == "loaded"
        assert main(args) == 0
        out = capsys.readouterr().out
        assert f"adopted Druid task {first['task_id']}: SUCCESS" in out and "served: loaded" in out
        posts = len(fake.requests)
        assert main([*args[:6], "2026-11-02/2026-12-01", *args[7:]]) == 1
        assert len(fake.requests) == posts  # refused before any HTTP
    err = capsys.readouterr().out
    assert "error: interval: does not start and end on MONTH buckets" in err
    assert "Druid would reject or misread this compaction request" in err


def test_compact_of_an_empty_interval_fails_naming_it_and_allow_empty_makes_it_done(capsys) -> None:
    with FakeDruid(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0) as fake:
        args = ["compact", "--url", fake.url, "--datasource", "events_web", "--interval", "2026-11-01/2026-12-01",
                "--granularity", "MONTH", "--task-timeout", "20", "--handoff-timeout", "20"]
        assert main(args) == 1
        err = capsys.readouterr().err
        assert "error: Nothing to compact: datasource 'events_web' holds no used segment in 2026-11-01" in err
        assert "--allow-empty" in err
        assert main([*args, "--allow-empty", "--json"]) == 0
        done = json.loads(capsys.readouterr().out)
        assert (done["ok"], done["outcome"], done["action"], done["state"], done["handoff"]) == (
            True, "nothing to compact", "adopted", "FAILED", None)
        assert sum(1 for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task") == 1


def test_drop_then_kill_a_day_and_bad_input_never_reaches_druid(capsys) -> None:
    from druid_ingest.clients import DruidClient
    from druid_ingest.wire import ClusterConfig

    from tests.druid_ingest.sample_specs import day_spec

    with FakeDruid(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0) as fake:
        with DruidClient(ClusterConfig(url=fake.url)) as client:
            client.ingest(day_spec(), task_timeout=20, handoff_timeout=20)
        where = ["--url", fake.url, "--datasource", "events_web", "--interval", "2026-11-01/2026-11-02"]
        assert main(["drop", *where, "--timeout", "20", "--json"]) == 0
        dropped = json.loads(capsys.readouterr().out)
        assert dropped["ok"] is True and dropped["marked"] == 1 and fake.served_segment_ids("events_web") == set()
        assert main(["kill", *where, "--task-timeout", "20"]) == 0
        out = capsys.readouterr().out
        assert "KILL the unused segments" in out and ": SUCCESS" in out and fake.segment_ids("events_web") == set()
        posts = len(fake.requests)
        assert main(["drop", *where[:5], "last week"]) == 1
        assert main(["kill", *where[:5], "last week"]) == 1
        assert len(fake.requests) == posts  # refused before any HTTP
    out = capsys.readouterr().out
    assert "error: interval:" in out and "drop request" in out and "kill request" in out


def test_restore_serves_a_dropped_day_again_and_bad_input_never_reaches_druid(capsys) -> None:
    from druid_ingest.clients import DruidClient
    from druid_ingest.wire import ClusterConfig

    from tests.druid_ingest.sample_specs import day_spec

    with FakeDruid(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0) as fake:
        with DruidClient(ClusterConfig(url=fake.url)) as client:
            client.ingest(day_spec(), task_timeout=20, handoff_timeout=20)
        served = fake.served_segment_ids("events_web")
        where = ["--url", fake.url, "--datasource", "events_web", "--interval", "2026-11-01/2026-11-02"]
        assert main(["drop", *where, "--timeout", "20"]) == 0
        capsys.readouterr()
        assert main(["restore", *where, "--timeout", "20", "--json"]) == 0
        restored = json.loads(capsys.readouterr().out)
        assert restored["ok"] is True and restored["marked"] == 1 and restored["name"].startswith("restore_")
        assert fake.served_segment_ids("events_web") == served
        posts = len(fake.requests)
        assert main(["restore", "--url", fake.url, "--datasource", "", "--interval", "last week"]) == 1
        assert len(fake.requests) == posts  # refused before any HTTP
    out = capsys.readouterr().out
    assert "error: datasource:" in out and "error: interval:" in out and "restore request" in out


def test_restore_of_nothing_fails_naming_the_opt_out_and_allow_empty_takes_it(capsys) -> None:
    with FakeDruid(task_duration=0.2, handoff_delay=0.1, pending_delay=0.0) as fake:
        where = ["--url", fake.url, "--datasource", "events_web", "--interval", "2026-11-01/2026-11-02"]
        assert main(["restore", *where, "--timeout", "20"]) != 0
        refused = capsys.readouterr()
        assert "nothing to restore" in refused.out + refused.err and "--allow-empty" in refused.out + refused.err
        assert main(["restore", *where, "--timeout", "20", "--allow-empty", "--json"]) == 0
        done = json.loads(capsys.readouterr().out)
        assert (done["ok"], done["marked"], done["served"]) == (True, 0, 0)
        with pytest.raises(SystemExit):  # a drop has nothing to opt out of
            main(["drop", *where, "--allow-empty"])
