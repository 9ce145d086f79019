"""The fake Druid's auto-compaction rules, one test each, in the shapes Druid 33.0.0 answered on the dev cluster
(``testing/fake_auto_compaction.py`` cites the Druid source of each)."""

from __future__ import annotations

import requests
from druid_ingest.testing import FakeDruid

CONFIG = "/druid/coordinator/v1/config/compaction"
NOT_FOUND = {"error": "druidException", "errorCode": "notFound", "persona": "USER", "category": "NOT_FOUND",
             "errorMessage": "Datasource compaction config does not exist", "context": {}}


def test_config_get_post_delete(fake_druid: FakeDruid) -> None:
    url = fake_druid.url
    assert requests.get(f"{url}{CONFIG}/ds1").json() == NOT_FOUND
    assert requests.post(f"{url}{CONFIG}", json={"dataSource": "ds1", "skipOffsetFromLatest": "P2D"}).json() == \
        {"success": True}
    stored = requests.get(f"{url}{CONFIG}/ds1").json()
    assert stored["type"] == "inline" and stored["taskPriority"] == 25 and stored["skipOffsetFromLatest"] == "P2D"
    assert stored["tuningConfig"] is None  # Druid answers every field, nulls included
    assert requests.delete(f"{url}{CONFIG}/ds1").json() == {"success": True}
    second = requests.delete(f"{url}{CONFIG}/ds1")
    assert second.status_code == 404 and second.json() == NOT_FOUND
    assert requests.post(f"{url}{CONFIG}", json={"skipOffsetFromLatest": "P2D"}).status_code == 400


def test_history_lists_changes_oldest_first_with_audit_headers(fake_druid: FakeDruid) -> None:
    url = fake_druid.url
    assert requests.get(f"{url}{CONFIG}/ds2/history").json() == []
    requests.post(f"{url}{CONFIG}", json={"dataSource": "ds2"})
    requests.delete(f"{url}{CONFIG}/ds2", headers={"X-Druid-Author": "me", "X-Druid-Comment": "why"})
    history = requests.get(f"{url}{CONFIG}/ds2/history").json()
    assert [h["compactionConfig"] is None for h in history] == [False, True]
    assert history[1]["auditInfo"]["author"] == "me" and history[1]["auditInfo"]["comment"] == "why"
    assert history[0]["auditInfo"]["author"] == "" and history[1]["globalConfig"]["useSupervisors"] is False


def test_supervisor_switches(fake_druid: FakeDruid) -> None:
    url, base = fake_druid.url, "/druid/indexer/v1"
    assert requests.get(f"{url}{base}/compaction/isSupervisorEnabled").json() is False
    missing = requests.get(f"{url}{base}/supervisor/autocompact__ds3")
    assert missing.status_code == 404 and missing.text == "Cannot find any supervisor with id: [autocompact__ds3]"
    assert requests.post(f"{url}{base}/supervisor/autocompact__ds3/suspend").text == missing.text
    sid = fake_druid.auto_compaction.add_supervisor("ds3")
    assert requests.post(f"{url}{base}/supervisor/{sid}/suspend").json()["suspended"] is True
    again = requests.post(f"{url}{base}/supervisor/{sid}/suspend")
    assert again.status_code == 400 and again.json() == {"error": f"[{sid}] is already suspended"}
    assert requests.get(f"{url}{base}/supervisor/{sid}").json()["type"] == "autocompact"
    assert requests.post(f"{url}{base}/supervisor/{sid}/resume").json()["suspended"] is False
    assert requests.post(f"{url}{base}/supervisor/{sid}/resume").json() == {"error": f"[{sid}] is already running"}
