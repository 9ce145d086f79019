"""Pause/resume of auto-compaction against the fake Druid (its rules: ``testing/fake_auto_compaction.py``), on both
clients: the config saved and deleted, a retry recovering it from the audit history, resume idempotent and never
over a re-created config, the supervisor switch, and bad input refused before any HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from druid_ingest.api.endpoints import ConfigChange
from druid_ingest.errors import DruidUsageError
from druid_ingest.ops.auto_compaction import PAUSE_COMMENT, AutoCompactionPause, paused_config
from druid_ingest.testing import FakeDruid

DS = "events_ac"
CONFIG = {"dataSource": DS, "skipOffsetFromLatest": "P2D", "granularitySpec": {"segmentGranularity": "MONTH"}}


def _stored(fake: FakeDruid) -> dict[str, Any] | None:
    return fake.auto_compaction.configs.get(DS)


def test_pause_deletes_and_saves_the_config_then_resume_posts_it_back(
        fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    original = fake_druid.auto_compaction.put_config(CONFIG)
    client = make_client()
    record = client.pause_auto_compaction(DS)
    assert record.paused == "compaction config" and record.config == original
    assert record.druid_version == "33.0.0" and not record.recovered_from_history
    assert _stored(fake_druid) is None
    deletes = fake_druid.requests_matching("DELETE", "/druid/coordinator/v1/config/compaction/")
    assert deletes[0].headers["X-Druid-Author"] == "druid-ingest"
    assert deletes[0].headers["X-Druid-Comment"] == PAUSE_COMMENT
    # a record through JSON (an XCom, a file) resumes the same
    assert client.resume_auto_compaction(DS, record.to_json()).outcome == "resumed"
    assert _stored(fake_druid) == original
    fake_druid.clear_requests()
    assert client.resume_auto_compaction(DS, record.to_json()).outcome == "already resumed"
    assert not fake_druid.requests_matching("POST", "/druid/coordinator/v1/config/compaction")


def test_a_retried_pause_recovers_the_config_its_earlier_try_deleted(
        fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    original = fake_druid.auto_compaction.put_config(CONFIG)
    client = make_client()
    first = client.pause_auto_compaction(DS)
    retry = client.pause_auto_compaction(DS)  # the first try's record lost with its XCom
    assert retry == AutoCompactionPause(DS, "compaction config", original, recovered_from_history=True)
    assert retry.config == first.config
    # a resume without any record recovers it the same way
    assert client.resume_auto_compaction(DS, None).outcome == "resumed"
    assert _stored(fake_druid) == original


def test_a_config_someone_else_deleted_is_never_revived(
        fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    fake_druid.auto_compaction.put_config(CONFIG)
    fake_druid.auto_compaction.delete_config(DS, "ops", "auto-compaction off for good")
    client = make_client()
    record = client.pause_auto_compaction(DS)
    assert record.paused == "nothing configured"
    assert client.resume_auto_compaction(DS, record.to_json()).outcome == "nothing to resume"
    assert client.resume_auto_compaction(DS, None).outcome == "nothing to resume"
    assert _stored(fake_druid) is None


def test_resume_leaves_a_config_recreated_meanwhile(fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    fake_druid.auto_compaction.put_config(CONFIG)
    client = make_client()
    record = client.pause_auto_compaction(DS)
    theirs = fake_druid.auto_compaction.put_config({**CONFIG, "skipOffsetFromLatest": "P7D"})
    result = client.resume_auto_compaction(DS, record)
    assert result.outcome == "left as is" and "created while it was paused" in result.detail
    assert _stored(fake_druid) == theirs


def test_nothing_configured_pauses_nothing(fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    client = make_client()
    record = client.pause_auto_compaction(DS)
    assert record.to_json()["paused"] == "nothing configured"
    assert client.resume_auto_compaction(DS, record.to_json()).outcome == "nothing to resume"
    assert not fake_druid.requests_matching("POST", "/druid/coordinator/v1/config/compaction")


def test_supervisors_suspend_and_resume(fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    fake_druid.auto_compaction.use_supervisors = True
    sid = fake_druid.auto_compaction.add_supervisor(DS)
    client = make_client()
    record = client.pause_auto_compaction(DS)
    assert record.to_json()["supervisor_id"] == sid == "autocompact__events_ac"
    assert fake_druid.auto_compaction.supervisors[sid] is True
    assert not fake_druid.requests_matching("DELETE")  # the config API is not the switch then
    assert client.resume_auto_compaction(DS, record.to_json()).outcome == "resumed"
    assert fake_druid.auto_compaction.supervisors[sid] is False
    assert client.resume_auto_compaction(DS, record.to_json()).outcome == "already resumed"


def test_an_already_suspended_supervisor_fails_closed_unless_adopted(
        fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    fake_druid.auto_compaction.use_supervisors = True
    sid = fake_druid.auto_compaction.add_supervisor(DS, suspended=True)
    client = make_client()
    with pytest.raises(DruidUsageError, match="adopt_suspended=True") as err:
        client.pause_auto_compaction(DS)
    assert "drop the pause and resume steps" in str(err.value)
    record = client.pause_auto_compaction(DS, adopt_suspended=True)
    assert record.supervisor_id == sid
    with pytest.raises(DruidUsageError, match="No pause record"):
        client.resume_auto_compaction(DS, None)  # a lost record cannot say whose suspension it is
    assert client.resume_auto_compaction(DS, record).outcome == "resumed"


def test_no_supervisor_is_nothing_configured_and_a_terminated_one_is_left(
        fake_druid: FakeDruid, make_client: Callable[..., Any]) -> None:
    fake_druid.auto_compaction.use_supervisors = True
    client = make_client()
    assert client.pause_auto_compaction(DS).paused == "nothing configured"
    sid = fake_druid.auto_compaction.add_supervisor(DS)
    record = client.pause_auto_compaction(DS)
    del fake_druid.auto_compaction.supervisors[sid]
    assert client.resume_auto_compaction(DS, record).outcome == "left as is"


@pytest.mark.parametrize(("datasource", "record", "field"), [
    ("", None, "datasource"),
    ("..", None, "datasource"),
    (DS, {"datasource": DS, "paused": "everything"}, "record.paused"),
    (DS, {"datasource": DS, "paused": "compaction config", "config": {"dataSource": "other"}}, "record.config"),
    (DS, {"datasource": DS, "paused": "compaction supervisor", "supervisor_id": "x"}, "record.supervisor_id"),
    (DS, {"datasource": "other", "paused": "nothing configured"}, "record.datasource"),
    (DS, ["not", "a", "record"], "record"),
])
def test_bad_input_fails_before_any_http(fake_druid: FakeDruid, make_client: Callable[..., Any], datasource: str,
                                         record: Any, field: str) -> None:
    client = make_client()
    with pytest.raises(DruidUsageError, match=field.replace(".", r"\.")):
        client.resume_auto_compaction(datasource, record)
    if record is None:
        with pytest.raises(DruidUsageError, match="datasource"):
            client.pause_auto_compaction(datasource)
    assert fake_druid.requests == []


def test_paused_config_reads_only_our_own_deletion() -> None:
    config = {"dataSource": DS}
    ours = ConfigChange(None, "druid-ingest", PAUSE_COMMENT, "t2")
    assert paused_config([ConfigChange(config, "", "", "t1"), ours]) == config
    # a global change after our deletion keeps the datasource's config null: still ours
    assert paused_config([ConfigChange(config, "", "", "t1"), ours, ConfigChange(None, "", "", "t3")]) == config
    assert paused_config([ConfigChange(config, "", "", "t1"), ConfigChange(None, "ops", "", "t2")]) is None
    assert paused_config([ConfigChange(config, "", "", "t1")]) is None  # present now
    assert paused_config([]) is None
