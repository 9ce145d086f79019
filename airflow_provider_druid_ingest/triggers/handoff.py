"""``DruidHandoffTrigger``: wait in the triggerer until a SUCCESS task's segments are queryable.

The :class:`~druid_ingest.api._models.HandoffTarget` is built once by the operator or sensor
(``client.handoff_target``) and passed as ``target`` (``HandoffTarget.to_dict()``: primitives), so a rebuilt
trigger evaluates exactly the same gate, and places the core's handoff looks from the same end (the target's
``ended_at``; ``ops/handoff_wait.py``, as every handoff wait). The event is :meth:`HandoffOutcome.to_dict`:
``{"status": "success"|"never"|"timeout"|"error", "druid_task_id", "message", "result"}``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from druid_ingest.api import HandoffResult, HandoffTarget

from airflow_provider_druid_ingest.triggers.base import DruidWaitTrigger

if TYPE_CHECKING:
    from druid_ingest.clients import AsyncDruidClient

__all__ = ["DruidHandoffTrigger"]


class DruidHandoffTrigger(DruidWaitTrigger):
    """Check the gate for ``target`` until done, ``never`` or ``end_time``.

    :param target: ``HandoffTarget.to_dict()`` of the SUCCESS task
    """

    def __init__(self, target: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = HandoffTarget.from_dict(target).to_dict()  # validates and normalizes

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return self._classpath(), {"target": self.target, **self._common_kwargs()}

    def _wait(self, client: AsyncDruidClient) -> Awaitable[Any]:
        target = HandoffTarget.from_dict(self.target)
        return client.watch_handoff(target, self.end_time - time.time(), self.schedule, self._log_result)

    def _errored(self, exc: Exception) -> Any:  # one "error" event, never a raise (``DruidWaitTrigger.run``)
        from druid_ingest.ops import HandoffOutcome

        return HandoffOutcome.errored(str(self.target["task_id"]), exc)

    def _log_result(self, result: HandoffResult) -> None:
        self.log.info("Handoff of Druid task %s: %s", self.target["task_id"], result.detail)
