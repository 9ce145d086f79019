"""``DruidUnservedTrigger``: wait in the triggerer until nothing in a dropped interval is served.

The drop operator marks the interval unused in its worker (one request), then defers here: the core's
``watch_unserved`` polls the Coordinator's inventory and the Broker's candidates until neither lists anything in
the interval. The event: ``{"status": "success"|"timeout"|"error", "message", "marked"}``.
"""

from __future__ import annotations

import time
from typing import Any

from airflow_provider_druid_ingest.triggers.base import DruidWaitTrigger

__all__ = ["DruidUnservedTrigger"]


class DruidUnservedTrigger(DruidWaitTrigger):
    """Watch ``interval`` of ``datasource`` until unserved or ``end_time``.

    :param name: the drop's name (``DropPlan.base_task_id``), for the logs
    :param marked: how many segments the operator's request marked unused
    """

    def __init__(self, datasource: str, interval: str, name: str, marked: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.datasource, self.interval, self.name, self.marked = datasource, interval, name, int(marked)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return self._classpath(), {"datasource": self.datasource, "interval": self.interval, "name": self.name,
                                   "marked": self.marked, **self._common_kwargs()}

    async def _watch(self) -> dict[str, Any]:
        from druid_ingest.planning import DropPlan
        from druid_ingest.wire import DruidWaitTimeoutError

        plan = DropPlan(self.datasource, (self.interval,), self.name)
        try:
            async with self._client() as client:
                result = await client.watch_unserved(plan, self.marked, self.end_time - time.time(), self.schedule,
                                                     lambda line: self.log.info("%s", line))
        except DruidWaitTimeoutError as exc:
            return {"status": "timeout", "message": str(exc), "marked": self.marked}
        except Exception as exc:  # one "error" event, never a raise
            return {"status": "error", "message": f"{type(exc).__name__}: {exc}", "marked": self.marked}
        return {"status": "success", "message": result.detail, "marked": result.marked}
