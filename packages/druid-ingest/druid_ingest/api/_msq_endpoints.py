"""MSQ's endpoint pair: ``POST /druid/v2/sql/task`` built from an :class:`MsqPlan`, and its answer parsed.

With the other endpoints (the Druid API), not with the statement planning of ``msq`` (pure text and time).
"""

from __future__ import annotations

from druid_ingest.errors import DruidProtocolError, DuplicateTaskIdError
from druid_ingest.planning import MsqPlan
from druid_ingest.wire import Request, Response, duplicate_id_in, raise_for_status

__all__ = ["parse_sql_task", "sql_task"]

def sql_task(plan: MsqPlan, task_id: str) -> Request:
    """druid-contract §msq: ``POST /druid/v2/sql/task`` on the Broker (through the Router)."""
    return plan.submit_request(task_id)


def parse_sql_task(resp: Response, req: Request) -> str:
    """The controller task id of a 202 ``{"taskId", "state": "RUNNING"}``; a duplicate id raises
    DuplicateTaskIdError whatever status Druid wraps it in; other refusals go through the error taxonomy."""
    dup = duplicate_id_in(resp.text) if not 200 <= resp.status < 300 else None
    if dup is not None:
        raise DuplicateTaskIdError(dup, status=resp.status, method=resp.method, url=resp.url,
                                   body=resp.text[:2000])
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, dict) or not data.get("taskId"):
        raise DruidProtocolError(f"sql/task answered without a taskId: {resp.text[:200]!r}", url=resp.url)
    return str(data["taskId"])
