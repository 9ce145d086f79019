"""An empty input must never erase an interval silently: a dropExisting replace probes its input through the
sampler before the submit POST, for BOTH clients (``make_client``), over real sockets against the fake.

The defect (Druid 33, dev/druid/RECORDED.md): a dynamic-partitioned ``dropExisting`` replace over an empty or
missing folder publishes tombstones over the whole interval, the old rows disappear, and the task is SUCCESS.
"""

from __future__ import annotations

import time

import pytest
from druid_ingest.errors import (
    DruidEmptyIngestionError,
    DruidEmptyInputError,
    DruidError,
    DruidInputProbeError,
    DruidInputProbeRefusedError,
    is_fatal,
)
from druid_ingest.testing import FakeDruid, Fault, TaskPlan
from druid_ingest.wire._retry import RetryPolicy

from tests.druid_ingest.sample_specs import day_spec

pytestmark = pytest.mark.timeout(60)
DAY = "2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"
SAMPLER = "/druid/indexer/v1/sampler"


def submits(fake: FakeDruid) -> int:
    return len(fake.submit_requests())


def samples(fake: FakeDruid) -> int:
    return len(fake.requests_matching("POST", SAMPLER))


def old_day(fake: FakeDruid) -> None:
    """The day already holds data (a version older than anything the fake will allocate)."""
    fake.preload_segments("events_web", DAY, "2020-01-01T00:00:00.000Z")


def test_replace_over_empty_input_fails_before_submit_and_the_day_keeps_its_rows(fake_druid: FakeDruid,
                                                                                 make_client) -> None:
    client = make_client()
    old_day(fake_druid)
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))  # the folder is empty: the task would write tombstones
    with pytest.raises(DruidEmptyInputError) as info:
        client.ensure_submitted(day_spec(dynamic=True))
    assert isinstance(info.value, DruidEmptyIngestionError)  # every face already fails those without retries
    text = str(info.value)
    for part in ("local", "/data/events/2026-11-01", "*.json", DAY, "nothing was submitted", "allow_empty=True"):
        assert part in text, (part, text)
    assert submits(fake_druid) == 0 and samples(fake_druid) == 2  # the interval's rows, then the whole input
    used = fake_druid.used_segments("events_web")
    assert [s["version"] for s in used] == ["2020-01-01T00:00:00.000Z"]  # untouched, no tombstone


def test_ingest_over_empty_input_fails_before_submit(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    old_day(fake_druid)
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))
    with pytest.raises(DruidEmptyInputError):
        client.ingest(day_spec(dynamic=True), task_timeout=20, handoff_timeout=20)
    assert submits(fake_druid) == 0


def test_the_sampler_is_asked_in_its_own_index_shape(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    outcome = client.ensure_submitted(day_spec(dynamic=True))
    assert outcome.action == "submitted" and outcome.input_probe is not None
    assert outcome.input_probe.startswith("input probe: "), outcome.input_probe
    assert not outcome.input_probe_warns
    (probe,) = fake_druid.requests_matching("POST", SAMPLER)
    body = probe.json
    assert body["type"] == "index" and body["spec"]["ioConfig"]["type"] == "index"
    assert body["spec"]["tuningConfig"] == {"type": "index"}
    assert body["spec"]["ioConfig"]["inputSource"]["baseDir"] == "/data/events/2026-11-01"
    assert body["spec"]["dataSchema"]["granularitySpec"]["intervals"] == [DAY]
    assert 0 < body["samplerConfig"]["numRows"] <= 5000 and body["samplerConfig"]["timeoutMs"] > 0
    requests = [(r.method, r.path) for r in fake_druid.requests]
    assert requests.index(("POST", SAMPLER)) < requests.index(("POST", "/druid/indexer/v1/task"))


def test_rows_read_but_none_indexed_warns_and_submits(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0, unparseable=5))
    outcome = client.ensure_submitted(day_spec(dynamic=True))
    assert outcome.action == "submitted" and submits(fake_druid) == 1
    assert "none of them indexed" in (outcome.input_probe or ""), outcome.input_probe
    assert "unparseable" in (outcome.input_probe or "").lower() and outcome.input_probe_warns


@pytest.mark.parametrize(
    ("fault", "why"),
    [
        (Fault("POST", SAMPLER, status=404, times=None, content_type="text/html",
               body="<html><body><h2>HTTP ERROR 404 Not Found</h2></body></html>"), "HTTP 404"),
        (Fault("POST", SAMPLER, status=405, times=None), "HTTP 405"),
        (Fault("POST", SAMPLER, status=403, times=None, content_type="application/json",
               body='{"Access-Check-Result": "Unauthorized"}'), "HTTP 403"),
        (Fault("POST", SAMPLER, status=400, times=None, content_type="application/json",
               body='{"error": "Could not resolve type id \'s3\'"}'), "HTTP 400"),
        (Fault("POST", SAMPLER, status=500, times=None), "HTTP 500"),
        (Fault("POST", SAMPLER, kind="delay", delay=3.0, times=None), "timed out"),
    ],
    ids=["404", "405", "403", "400", "500", "timeout"],
)
def test_a_probe_that_cannot_run_stops_the_replace_before_submit(fake_druid: FakeDruid, make_client, fault: Fault,
                                                                  why: str) -> None:
    """Issue 27 item 3: the probe fails closed. A sampler that cannot be asked must not let an empty input
    tombstone the interval: nothing is submitted, the error names the cause and the opt-out."""
    retry = RetryPolicy(max_attempts=2, initial_delay=0.02, max_delay=0.05, deadline=10)
    client = make_client(retry=retry)
    old_day(fake_druid)
    fake_druid.add_fault(fault)
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))  # an empty input the probe cannot see
    with pytest.raises(DruidError) as info:
        client.ensure_submitted(day_spec(dynamic=True))
    text = str(info.value)
    assert why in text and "nothing was submitted" in text and "allow_empty=True" in text, text
    transient = why in ("HTTP 500", "timed out")
    assert isinstance(info.value, DruidInputProbeError if transient else DruidInputProbeRefusedError)
    assert is_fatal(info.value) is not transient  # a 5xx or a timeout may pass on the next try
    if why == "HTTP 403":
        assert "STATE WRITE" in text and "POST /druid/indexer/v1/sampler" in text
    assert submits(fake_druid) == 0
    assert [s["version"] for s in fake_druid.used_segments("events_web")] == ["2020-01-01T00:00:00.000Z"]
    outcome = client.ensure_submitted(day_spec(dynamic=True), allow_empty=True)  # the opt-out
    assert outcome.action == "submitted" and submits(fake_druid) == 1


def test_rows_all_outside_the_interval_are_an_empty_input(fake_druid: FakeDruid, make_client) -> None:
    """Issue 27 item 2: the folder held only the previous day's file; Druid would have tombstoned the day."""
    client = make_client()
    old_day(fake_druid)
    fake_druid.plan_next_task(TaskPlan(rows_outside=True))
    with pytest.raises(DruidEmptyInputError) as info:
        client.ensure_submitted(day_spec(dynamic=True))
    text = str(info.value)
    for part in ("read 1 row(s)", "all with __time 2026-10-31T00:00:00.000Z,", f"outside {DAY}",
                 "nothing was submitted", "allow_empty=True"):
        assert part in text, (part, text)
    assert submits(fake_druid) == 0 and samples(fake_druid) == 2
    assert [s["version"] for s in fake_druid.used_segments("events_web")] == ["2020-01-01T00:00:00.000Z"]


def test_one_row_inside_the_interval_submits(fake_druid: FakeDruid, make_client) -> None:
    """An unsorted or multi-day input: the sample holds one row of the day, the rest of another day."""
    client = make_client()
    body = ('{"numRowsRead": 3, "numRowsIndexed": 3, "data": [{"parsed": {"__time": 1793404800000}}, '
            '{"parsed": {"__time": 1793491200000}}, {"parsed": {"__time": 1793404800001}}]}')  # 10-31, 11-01, 10-31
    fake_druid.add_fault(Fault("POST", SAMPLER, kind="status", status=200, body=body,
                               content_type="application/json", times=1))
    outcome = client.ensure_submitted(day_spec(dynamic=True))
    assert outcome.action == "submitted" and (outcome.input_probe or "").startswith("input probe: the sampler read 3")


def test_adopting_an_existing_task_never_probes(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    first = client.ensure_submitted(day_spec(dynamic=True))
    fake_druid.clear_requests()
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))  # the input is empty now: irrelevant, nothing is sent
    again = client.ensure_submitted(day_spec(dynamic=True))
    assert again.action == "adopted" and again.task_id == first.task_id
    assert samples(fake_druid) == 0 and submits(fake_druid) == 0 and again.input_probe is None


def test_allow_empty_skips_the_probe_and_submits(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))
    outcome = client.ensure_submitted(day_spec(dynamic=True), allow_empty=True)
    assert outcome.action == "submitted" and samples(fake_druid) == 0 and submits(fake_druid) == 1
    assert outcome.input_probe is None


def test_append_and_legacy_replace_are_not_probed(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    client.ensure_submitted(day_spec(dynamic=True, appendToExisting=True, dropExisting=False))
    client.ensure_submitted(day_spec("2026-11-02", dynamic=True, dropExisting=False))
    assert samples(fake_druid) == 0 and submits(fake_druid) == 2


def test_a_hanging_sampler_costs_one_capped_read_never_a_retry(fake_druid: FakeDruid, make_client,
                                                               monkeypatch) -> None:
    """Druid 33 kept a sampler call open for 249 s on an unreachable http input (RECORDED.md §15): the probe's
    own read cap ends it (below the connection's read_timeout) and it is not retried: each retry would start
    another hanging read on the Overlord."""
    from druid_ingest.ops import _input_probe as input_probe

    monkeypatch.setattr(input_probe, "PROBE_READ_TIMEOUT", 0.5)
    client = make_client(read_timeout=10.0)
    fake_druid.add_fault(Fault("POST", SAMPLER, kind="delay", delay=4.0, times=None))
    started = time.monotonic()
    with pytest.raises(DruidInputProbeError, match="timed out"):
        client.ensure_submitted(day_spec(dynamic=True))
    elapsed = time.monotonic() - started
    assert samples(fake_druid) == 1 and submits(fake_druid) == 0 and elapsed < 3.0, elapsed


def test_no_row_within_the_samplers_budget_is_refused_as_possibly_slow_not_as_empty(fake_druid: FakeDruid,
                                                                                   make_client,
                                                                                   monkeypatch) -> None:
    """Druid's sampler stops reading at ``timeoutMs`` and answers what it has (``TimedShutoffInputSourceReader``):
    0 rows after the whole budget is a slow input as much as an empty one. Still refused (submitting could erase
    the interval), but the message must say which budget ran out, not that the input is empty."""
    from druid_ingest.ops import _input_probe as input_probe

    monkeypatch.setattr(input_probe, "PROBE_TIMEOUT_MS", 300)
    client = make_client()
    old_day(fake_druid)
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))
    fake_druid.add_fault(Fault("POST", SAMPLER, kind="delay", delay=0.4, times=None))
    with pytest.raises(DruidEmptyInputError) as info:
        client.ensure_submitted(day_spec(dynamic=True))
    text = str(info.value)
    assert "no row within its 0.3 s budget" in text and "slow" in text, text
    assert "the input of this dropExisting replace is empty" not in text, text
    assert "allow_empty=True" in text and submits(fake_druid) == 0


def test_a_quick_empty_answer_is_still_called_empty(fake_druid: FakeDruid, make_client) -> None:
    client = make_client()
    fake_druid.plan_next_task(TaskPlan(rows_per_bucket=0))
    with pytest.raises(DruidEmptyInputError) as info:
        client.ensure_submitted(day_spec(dynamic=True))
    assert "the input of this dropExisting replace is empty" in str(info.value)
    assert "budget" not in str(info.value)


def test_the_probe_asks_only_for_the_rows_of_the_plans_intervals(fake_druid: FakeDruid, make_client) -> None:
    """An hour replaced from a day's file: the first rows of the file lie before the hour, so the probe asks the
    sampler to skip rows outside the interval (an ``interval`` filter on ``__time``, and-ed with the spec's own)."""
    spec = day_spec(dynamic=True)
    spec["spec"]["dataSchema"]["transformSpec"] = {"filter": {"type": "selector", "dimension": "country",
                                                              "value": "DE"}}
    make_client().ensure_submitted(spec)
    (probe,) = fake_druid.requests_matching("POST", SAMPLER)
    assert probe.json["spec"]["dataSchema"]["transformSpec"]["filter"] == {"type": "and", "fields": [
        {"type": "selector", "dimension": "country", "value": "DE"},
        {"type": "interval", "dimension": "__time", "intervals": [DAY]}]}
