"""The fake Coordinator and segment lifecycle over real sockets: replace, append, tombstones, handoff."""

from __future__ import annotations

import time

import requests
from druid_ingest.testing import TaskPlan, index_parallel_spec

from tests.druid_ingest.testing.waiting import wait_until

V1 = "/druid/indexer/v1"
C1 = "/druid/coordinator/v1"
DAY = "2024-01-01T00:00:00.000Z/2024-01-02T00:00:00.000Z"


def run_task(fake, spec):
    task_id = requests.post(fake.url + V1 + "/task", json=spec, timeout=5).json()["task"]
    wait_until(lambda: fake.task(task_id).state != "RUNNING")
    return fake.task(task_id)


def metadata(fake, ds, intervals=("2024-01-01/2024-02-01",)):
    resp = requests.post(f"{fake.url}{C1}/metadata/datasources/{ds}/segments?full", json=list(intervals),
                         timeout=5)
    assert resp.status_code == 200
    return resp.json()


def loadstatus(fake, ds, query):
    return requests.get(f"{fake.url}{C1}/datasources/{ds}/loadstatus?{query}", timeout=5)


def handoff(fake, ds, seg):
    resp = requests.get(f"{fake.url}{C1}/datasources/{ds}/handoffComplete", timeout=5, params={
        "interval": seg["interval"], "partitionNumber": seg["shardSpec"]["partitionNum"],
        "version": seg["version"]})
    return resp.json()


def test_replace_old_served_until_handoff(fake_druid_factory):
    # overshadowed_grace=0: a cluster up for more than millisToWaitBeforeDeleting (steady state).
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.4, overshadowed_grace=0)
    old = fake.preload_segments("wiki", "2024-01-01/2024-01-02", "2023-01-01T00:00:00.000Z")[0]
    assert fake.served_segment_ids("wiki") == {old["identifier"]}
    task = run_task(fake, index_parallel_spec("wiki", drop_existing=True))
    assert task.state == "SUCCESS"
    new = task.segments[0]
    assert new["version"] == task.version > old["version"]
    assert new["identifier"] == f"wiki_2024-01-01T00:00:00.000Z_2024-01-02T00:00:00.000Z_{task.version}"
    assert {s["version"] for s in metadata(fake, "wiki")} == {old["version"], new["version"]}
    ids = requests.post(f"{fake.url}{C1}/metadata/datasources/wiki/segments", json=["2024-01-01/2024-01-02"],
                        timeout=5).json()
    assert sorted(ids) == sorted([old["identifier"], new["identifier"]])
    served = requests.get(f"{fake.url}{C1}/datasources/wiki/intervals/2024-01-01_2024-01-02?full",
                          timeout=5).json()
    assert list(served[DAY]) == [old["identifier"]]
    assert served[DAY][old["identifier"]]["servers"] == ["127.0.0.1:8083"]
    assert handoff(fake, "wiki", new) is False
    # per-datasource loadstatus only counts the new (non-overshadowed) segment
    assert loadstatus(fake, "wiki", "forceMetadataRefresh=true&interval=2024-01-01/2024-01-02&simple").json() \
        == {"wiki": 1}
    wait_until(lambda: new["identifier"] in fake.served_segment_ids("wiki"))
    assert handoff(fake, "wiki", new) is True
    assert handoff(fake, "wiki", old) is True  # a newer version is served
    assert loadstatus(fake, "wiki", "forceMetadataRefresh=true&interval=2024-01-01/2024-01-02").json() \
        == {"wiki": 100.0}
    # one coordinator cycle later the overshadowed old segment is marked unused, then dropped
    wait_until(lambda: [s["version"] for s in fake.used_segments("wiki")] == [new["version"]])
    wait_until(lambda: fake.served_segment_ids("wiki") == {new["identifier"]})


def test_overshadowed_stay_used_and_served_after_fresh_start(fake_druid_factory):
    # Druid 33 (RECORDED.md §6/§7): within 15 min of the Coordinator's start nothing is marked unused, so the
    # replaced version stays listed by the metadata POST and served next to the new one.
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    old = fake.preload_segments("wiki", "2024-01-01/2024-01-02", "2023-01-01T00:00:00.000Z")[0]
    new = run_task(fake, index_parallel_spec("wiki", drop_existing=True)).segments[0]
    wait_until(lambda: new["identifier"] in fake.served_segment_ids("wiki"))
    time.sleep(0.3)  # several coordinator periods
    assert fake.served_segment_ids("wiki") == {old["identifier"], new["identifier"]}
    assert {s["version"] for s in metadata(fake, "wiki")} == {old["version"], new["version"]}
    simple = requests.get(f"{fake.url}{C1}/datasources/wiki/intervals/2024-01-01_2024-01-02?simple",
                          timeout=5).json()
    assert simple[DAY]["count"] == 2
    assert handoff(fake, "wiki", old) is True and handoff(fake, "wiki", new) is True


def test_zero_replica_rule_never_served_handoff_true(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    fake.set_rules("cold", [{"type": "loadForever", "tieredReplicants": {"_default_tier": 0}}])
    task = run_task(fake, index_parallel_spec("cold"))
    seg = task.segments[0]
    time.sleep(0.2)
    assert fake.served_segment_ids("cold") == set()
    assert handoff(fake, "cold", seg) is True
    assert loadstatus(fake, "cold", "forceMetadataRefresh=true&interval=2024-01-01/2024-01-02&simple").json() \
        == {"cold": 1}
    rules = requests.get(f"{fake.url}{C1}/rules/cold?full", timeout=5).json()
    assert rules[0]["tieredReplicants"] == {"_default_tier": 0} and rules[-1]["type"] == "loadForever"
    fake.set_rules("gone", [{"type": "dropForever"}])
    seg2 = run_task(fake, index_parallel_spec("gone")).segments[0]
    time.sleep(0.15)
    assert fake.served_segment_ids("gone") == set() and handoff(fake, "gone", seg2) is True


def test_default_rules_endpoint(fake_druid):
    assert requests.get(f"{fake_druid.url}{C1}/rules/any", timeout=5).json() == []
    assert requests.get(f"{fake_druid.url}{C1}/rules/any?full", timeout=5).json() == [
        {"type": "loadForever", "tieredReplicants": {"_default_tier": 2}}]  # Druid default (RECORDED.md §9)


def test_tombstones_only_where_old_data(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    fake.preload_segments("t", "2024-01-01/2024-01-02", "2023-01-01T00:00:00.000Z")
    fake.plan_next_task(TaskPlan(rows_per_bucket=0))
    task = run_task(fake, index_parallel_spec("t", ["2024-01-01/2024-01-03"], drop_existing=True))
    assert len(task.segments) == 1
    tomb = task.segments[0]
    assert tomb["interval"] == DAY and tomb["shardSpec"]["type"] == "tombstone"
    # Druid 33 tombstone JSON (RECORDED.md §6)
    assert tomb["loadSpec"] == {"path": None, "type": "tombstone"} and tomb["size"] == 1
    assert tomb["shardSpec"] == {"type": "tombstone", "partitionNum": 0, "partitions": 0}
    assert tomb["binaryVersion"] is None
    report = requests.get(f"{fake.url}{V1}/task/{task.id}/reports", timeout=5).json()
    assert report["ingestionStatsAndErrors"]["payload"]["segmentsPublished"] == 1
    # the tombstone is served; the data it overshadows too, until marked unused (after overshadowed_grace)
    wait_until(lambda: tomb["identifier"] in fake.served_segment_ids("t"))
    assert len(fake.served_segment_ids("t")) == 2
    # without dropExisting an empty ingestion publishes nothing
    fake.plan_next_task(TaskPlan(rows_per_bucket=0))
    assert run_task(fake, index_parallel_spec("t", ["2024-01-05/2024-01-06"])).segments == []


def test_append_same_version_next_partition(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    first = run_task(fake, index_parallel_spec("a")).segments[0]
    second = run_task(fake, index_parallel_spec("a", append=True)).segments[0]
    assert second["version"] == first["version"]
    assert second["shardSpec"] == {"type": "numbered", "partitionNum": 1, "partitions": 1}
    assert second["identifier"] == first["identifier"] + "_1"
    wait_until(lambda: len(fake.served_segment_ids("a")) == 2)


def test_granularity_buckets_and_month(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0)
    task = run_task(fake, index_parallel_spec("g", ["2024-01-15/2024-03-02"], segment_granularity="month"))
    assert [s["interval"] for s in task.segments] == [
        "2024-01-01T00:00:00.000Z/2024-02-01T00:00:00.000Z",
        "2024-02-01T00:00:00.000Z/2024-03-01T00:00:00.000Z",
        "2024-03-01T00:00:00.000Z/2024-04-01T00:00:00.000Z",
    ]
    hourly = run_task(fake, index_parallel_spec("h", ["2024-01-01T00:00/2024-01-01T03:00"],
                                                segment_granularity="HOUR"))
    assert len(hourly.segments) == 3


def test_loadstatus_204_and_400_cases(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    resp = loadstatus(fake, "wiki", "interval=2024-01-01/2024-01-02")
    assert resp.status_code == 400 and resp.text == "Invalid request. forceMetadataRefresh must be specified"
    assert loadstatus(fake, "unknown", "forceMetadataRefresh=true").status_code == 204
    run_task(fake, index_parallel_spec("wiki"))
    # Druid 33 (RECORDED.md §9): known datasource, no used segments in the interval -> 200 plain text
    resp = loadstatus(fake, "wiki", "forceMetadataRefresh=true&interval=2030-01-01/2030-01-02")
    assert resp.status_code == 200 and resp.text == "No used segment found for the given datasource and interval"
    # default interval is the last 14 days: the 2024 data is outside it
    assert loadstatus(fake, "wiki", "forceMetadataRefresh=true").status_code == 200
    assert requests.get(f"{fake.url}{C1}/datasources/unknown/segments", timeout=5).status_code == 204
    resp = requests.get(f"{fake.url}{C1}/datasources/unknown/intervals/2024-01-01_2024-01-02?full", timeout=5)
    assert resp.status_code == 204
    wait_until(lambda: fake.served_segment_ids("wiki"))
    resp = requests.get(f"{fake.url}{C1}/datasources/wiki/intervals/2030-01-01_2030-01-02?full", timeout=5)
    assert resp.status_code == 200 and resp.json() == {}
    simple = requests.get(f"{fake.url}{C1}/datasources/wiki/intervals/2024-01-01_2024-01-02?simple",
                          timeout=5).json()
    assert simple[DAY]["count"] == 1 and simple[DAY]["size"] > 0
    assert requests.post(f"{fake.url}{C1}/metadata/datasources/unknown/segments?full",
                         json=["2024-01-01/2024-01-02"], timeout=5).json() == []


def test_paused_loading_and_cluster_loadstatus(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    fake.pause_loading()
    seg = run_task(fake, index_parallel_spec("p")).segments[0]
    time.sleep(0.15)
    assert fake.served_segment_ids("p") == set() and handoff(fake, "p", seg) is False
    assert requests.get(f"{fake.url}{C1}/loadstatus", timeout=5).json() == {"p": 0.0}
    assert requests.get(f"{fake.url}{C1}/loadstatus?simple", timeout=5).json() == {"p": 1}
    fake.load_all_now()
    assert fake.served_segment_ids("p") == {seg["identifier"]}
    fake.resume_loading()
    assert requests.get(f"{fake.url}{C1}/loadstatus", timeout=5).json() == {"p": 100.0}


def test_await_segment_availability_in_task(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.2)
    task = run_task(fake, index_parallel_spec("w", await_ms=5000))
    assert task.state == "SUCCESS"
    payload = requests.get(f"{fake.url}{V1}/task/{task.id}/reports", timeout=5).json()[
        "ingestionStatsAndErrors"]["payload"]
    assert payload["segmentAvailabilityConfirmed"] is True
    assert payload["segmentAvailabilityWaitTimeMs"] >= 150
    assert fake.served_segment_ids("w") == {task.segments[0]["identifier"]}


RANGE = {"forceGuaranteedRollup": True, "partitionsSpec": {"type": "range", "partitionDimensions": ["page"]}}


def test_range_empty_input_success_with_error_msg_nothing_published_no_report(fake_druid_factory):
    # Druid 33 (RECORDED.md §2, manual_test_3): even over older data, with dropExisting.
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    old = fake.preload_segments("r", "2024-01-01/2024-01-02", "2023-01-01T00:00:00.000Z")[0]
    fake.plan_next_task(TaskPlan(rows_per_bucket=0))
    task = run_task(fake, index_parallel_spec("r", drop_existing=True, tuning=RANGE))
    assert task.state == "SUCCESS" and task.segments == []
    status = requests.get(f"{fake.url}{V1}/task/{task.id}/status", timeout=5).json()["status"]
    assert status["errorMsg"] == ("No valid rows for range partitioning. All rows may have invalid timestamps or "
                                  "multiple dimension values.")
    resp = requests.get(f"{fake.url}{V1}/task/{task.id}/reports", timeout=5)
    assert resp.status_code == 404 and resp.text.startswith("No task reports were found")
    assert [s["identifier"] for s in metadata(fake, "r")] == [old["identifier"]]


def test_range_shard_spec_single_and_failed_range_has_no_report(fake_druid_factory):
    fake = fake_druid_factory(task_duration=0.05, pending_delay=0.0, handoff_delay=0.05)
    seg = run_task(fake, index_parallel_spec("r", tuning=RANGE)).segments[0]
    # Druid 33 (RECORDED.md §6): one partition dimension -> SingleDimensionShardSpec
    assert seg["shardSpec"] == {"type": "single", "start": None, "end": None, "dimension": "page",
                                "partitionNum": 0, "numCorePartitions": 1}
    two = {**RANGE, "partitionsSpec": {"type": "range", "partitionDimensions": ["page", "user"]}}
    assert run_task(fake, index_parallel_spec("r2", tuning=two)).segments[0]["shardSpec"]["type"] == "range"
    fake.plan_next_task(TaskPlan(outcome="FAILED", error_msg="Failed in phase[partial dimension distribution]."))
    failed = run_task(fake, index_parallel_spec("r3", tuning=RANGE))
    assert failed.state == "FAILED"  # RECORDED.md §12: no report for a failed range supervisor
    assert requests.get(f"{fake.url}{V1}/task/{failed.id}/reports", timeout=5).status_code == 404
