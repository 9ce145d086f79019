"""Druid response bodies, one generator per endpoint shape (docs/druid-contract.md), every field mutable."""

from __future__ import annotations

from .gen import any_json, dicts, field, floats, integers, just, lists, obj, one_of, sampled, text
from .strategies import instants, intervals, versions

__all__ = [
    "TASK_IDS", "active_locks_body", "bulk_body", "candidates_body", "report_body", "segment", "served_body",
    "status_body", "task_status", "tasks_body", "workers_body",
]

TASK_IDS = sampled(["ingest_wiki_20260716_0123456789abcdef", "t1", "index_parallel_x_r1", "a b:c%d"])
_STATES = sampled(["RUNNING", "SUCCESS", "FAILED", "RUNNING", "SUCCESS", "FAILED", "WAITING", "PENDING", "NONE", "",
                   "running"])
_PORTS = integers(-1, 70000)
_LOCATION = obj({"host": sampled(["mm1", "10.0.0.1", "", "[::1]"]), "port": _PORTS, "tlsPort": _PORTS})
task_status = obj(
    {"id": TASK_IDS, "statusCode": _STATES, "status": _STATES, "runnerStatusCode": _STATES},
    {"type": sampled(["index_parallel", "index", "single_phase_sub_task"]), "createdTime": instants,
     "queueInsertionTime": instants, "duration": one_of(integers(-5, 10**13), floats()),
     "location": _LOCATION, "dataSource": sampled(["wiki", ""]), "errorMsg": text(30), "groupId": TASK_IDS},
)
status_body = one_of(obj({"task": TASK_IDS, "status": task_status}), obj({"task": TASK_IDS, "status": task_status}),
                     any_json)
bulk_body = one_of(dicts(TASK_IDS, field(task_status)), dicts(TASK_IDS, field(task_status)), any_json)
tasks_body = one_of(lists(field(task_status)), lists(field(task_status)), any_json)

_COUNT = one_of(integers(-1, 10**12), floats())
_COUNTERS = obj({}, {k: _COUNT for k in ("processed", "processedBytes", "processedWithError", "thrownAway",
                                         "unparseable")})
_PHASE = sampled(["buildSegments", "determinePartitions", "x"])
_PHASES = dicts(_PHASE, field(_COUNTERS), max_size=2)
_MOVING = dicts(sampled(["buildSegments", "x"]), field(dicts(sampled(["1m", "5m"]), field(_COUNTERS), 2)), 1)
_EVENT = one_of(text(20), obj({}, {"details": field(lists(text(5), 2)), "message": text(10), "input": any_json,
                                   "errorType": text(5)}))
_UNPARSEABLE = one_of(lists(field(_EVENT)), dicts(_PHASE, field(lists(field(_EVENT))), 2))
_ROW_STATS = one_of(_PHASES, _COUNTERS, obj({"totals": _PHASES}, {"movingAverages": _MOVING}))
_PAYLOAD = obj({}, {
    "ingestionState": sampled(["COMPLETED", "NOT_STARTED", "BUILD_SEGMENTS"]), "rowStats": _ROW_STATS,
    "unparseableEvents": _UNPARSEABLE, "errorMsg": text(40), "segmentAvailabilityConfirmed": sampled([True, False]),
    "segmentAvailabilityWaitTimeMs": integers(-1, 10**9),
    "recordsProcessed": one_of(integers(), dicts(text(3), any_json, 2)), "segmentsRead": integers(),
    "segmentsPublished": one_of(integers(-1, 10**6), floats()),
})
#: both shapes: the ``ingestionStatsAndErrors`` wrapper and a bare payload
report_body = one_of(
    obj({"ingestionStatsAndErrors": obj({"taskId": TASK_IDS, "type": just("ingestionStatsAndErrors"),
                                         "payload": _PAYLOAD})}),
    obj({"ingestionStatsAndErrors": obj({"taskId": TASK_IDS, "payload": _PAYLOAD})}),
    _PAYLOAD,
    any_json,
)

_SHARD = obj({"type": sampled(["numbered", "tombstone", "range", "hashed"])},
             {"partitionNum": integers(-1, 10**12), "partitions": integers(0, 5)})
segment = obj(
    {"dataSource": just("wiki"), "interval": intervals, "version": versions, "shardSpec": _SHARD},
    {"identifier": text(40), "id": text(40), "size": integers(-1, 10**15),
     "loadSpec": obj({"type": sampled(["local", "tombstone", "s3_zip"])}), "binaryVersion": integers()},
)
served_body = one_of(
    lists(field(text(40)), 4),
    dicts(intervals, field(dicts(text(40), field(obj({"metadata": segment, "servers": lists(text(10), 2)})))), 2),
    any_json,
)
candidates_body = one_of(lists(field(obj(
    {"interval": intervals, "version": versions, "locations": lists(field(obj({"name": text(8), "host": text(8)})),
                                                                       2)},
    {"partitionNumber": integers(-1, 10**12), "size": integers(-1, 10**15)},
)), 4), any_json)
workers_body = one_of(lists(field(obj(
    {"worker": obj({"host": text(10), "capacity": integers(-1, 64)},
                   {"version": text(4), "category": text(4), "ip": text(4)}),
     "currCapacityUsed": integers(-1, 64)},
    {"availabilityGroups": any_json, "runningTasks": any_json, "lastCompletedTaskTime": instants},
))), any_json)
active_locks_body = one_of(obj({"datasourceToLocks": dicts(just("wiki"), field(lists(field(obj(
    {"groupId": TASK_IDS, "dataSource": just("wiki"), "interval": intervals, "version": versions},
    {"type": sampled(["EXCLUSIVE", "SHARED"]), "priority": integers(), "revoked": any_json},
)))), 1)}), any_json)
