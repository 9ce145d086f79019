"""``DruidHandoffTrigger``: wait in the triggerer until a SUCCESS task's segments are queryable.

The :class:`~airflow_provider_druid_ingest.core.models.HandoffTarget` is built once by the operator or
sensor (``client.handoff_target``) and passed as ``target`` (``HandoffTarget.to_dict()``: primitives), so
a rebuilt trigger evaluates exactly the same gate. One event:

``{"status": "success"|"never"|"timeout"|"error", "druid_task_id", "message", "result"}`` where ``result`` is
``HandoffResult.to_dict()`` (``state`` is ``loaded``, ``nothing`` or ``superseded`` on success) or None.
"""

from __future__ import annotations

from typing import Any

from airflow_provider_druid_ingest.core.models import HandoffTarget
from airflow_provider_druid_ingest.triggers.task import DruidPollingTrigger


class DruidHandoffTrigger(DruidPollingTrigger):
    """Poll ``check_handoff(target)`` until done, ``never`` or ``end_time``.

    :param target: ``HandoffTarget.to_dict()`` of the SUCCESS task
    """

    def __init__(self, target: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = HandoffTarget.from_dict(target).to_dict()  # validates and normalizes

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return self._classpath(), {"target": self.target, **self._common_kwargs()}

    def _event(self, status: str, message: str, result: Any = None) -> dict[str, Any]:
        return {
            "status": status,
            "druid_task_id": self.target["task_id"],
            "message": message,
            "result": result.to_dict() if result is not None else None,
        }

    async def _wait(self) -> dict[str, Any]:
        target = HandoffTarget.from_dict(self.target)
        try:
            async with await self._client() as client:
                polls = 0
                while True:
                    result = await client.check_handoff(target)
                    if result.done:
                        return self._event("success", f"{target.datasource}: {result.state}: {result.detail}", result)
                    if result.state == "never":
                        return self._event("never", f"{target.datasource}: {result.detail}", result)
                    self.log.info("Handoff of Druid task %s: %s", target.task_id, result.detail)
                    polls += 1
                    if not await self._sleep(polls):
                        return self._event(
                            "timeout",
                            f"segments of Druid task {target.task_id} not queryable at the deadline: {result.detail}",
                            result,
                        )
        except Exception as exc:  # one "error" event, never a raise
            return self._event("error", f"waiting for handoff of Druid task {target.task_id} failed: {exc}")
