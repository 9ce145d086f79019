"""``DruidSegmentStateTrigger``: wait in the triggerer until an interval is in the state a segment write wants.

A segment-write operator (a drop) sends its one request in its worker, then defers here: the core's
``watch_segment_state`` polls the Coordinator's inventory and the Broker's candidates until nothing in the interval
is served (``wants_served`` False) or every segment visible there is served and routed (True; an interval showing
no data segment is an error unless ``allow_empty``). The event: ``{"status": "success"|"timeout"|"error",
"message", "marked"}``, with ``error_classes`` (the core error's, ``druid_ingest.errors.error_names``) on a failure.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from airflow_provider_druid_ingest.triggers.base import DruidWaitTrigger

if TYPE_CHECKING:
    from druid_ingest.clients import AsyncDruidClient

__all__ = ["DruidSegmentStateTrigger"]


class DruidSegmentStateTrigger(DruidWaitTrigger):
    """Watch ``interval`` of ``datasource`` until in the wanted state or ``end_time``.

    :param name: the write's name (the plan's ``base_task_id``), for the logs
    :param marked: how many segments the operator's request changed
    :param wants_served: True: until served and routed; False: until nothing is served
    :param allow_empty: with ``wants_served``, an interval showing no data segment is green, not an error
    """

    def __init__(self, datasource: str, interval: str, name: str, marked: int, wants_served: bool,
                 allow_empty: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.datasource, self.interval, self.name, self.marked = datasource, interval, name, int(marked)
        self.wants_served, self.allow_empty = bool(wants_served), bool(allow_empty)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return self._classpath(), {"datasource": self.datasource, "interval": self.interval, "name": self.name,
                                   "marked": self.marked, "wants_served": self.wants_served,
                                   "allow_empty": self.allow_empty, **self._common_kwargs()}

    def _wait(self, client: AsyncDruidClient) -> Awaitable[Any]:
        return client.watch_segment_state(
            self.datasource, self.interval, self.name, self.wants_served, self.marked,
            self.end_time - time.time(), self.schedule, lambda line: self.log.info("%s", line),
            allow_empty=self.allow_empty)

    def _errored(self, exc: Exception) -> Any:  # one "error" (or "timeout") event, never a raise
        from druid_ingest.errors import DruidWaitTimeoutError, error_names

        classes = list(error_names(exc))
        if isinstance(exc, DruidWaitTimeoutError):
            return {"status": "timeout", "message": str(exc), "marked": self.marked, "error_classes": classes}
        return {"status": "error", "message": f"{type(exc).__name__}: {exc}", "marked": self.marked,
                "error_classes": classes}

    def _event(self, outcome: Any) -> dict[str, Any]:
        if isinstance(outcome, dict):  # from ``_errored``
            return outcome
        return {"status": "success", "message": outcome.detail, "marked": outcome.marked}
