"""``DruidTaskTrigger``: wait in the triggerer for a Druid task to reach SUCCESS or FAILED.

The event is :meth:`TaskOutcome.to_dict`: ``{"status": "success"|"failed"|"timeout"|"error", "druid_task_id",
"message", "summary", "summary_text", "version_ceiling"}``. For ``failed`` the message is the
``DruidTaskFailedError`` text (errorMsg's head, row stats, first unparseable events; about 8 KB at most); Druid's
errorMsg travels once, in ``summary`` (at most 64 KB), and ``summary_text`` is the report without it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from airflow_provider_druid_ingest.triggers.base import DruidWaitTrigger, no_progress, progress_log

if TYPE_CHECKING:
    from druid_ingest.clients import AsyncDruidClient
# The core's waits and outcomes are imported inside the methods, after ``_client`` loaded them in a thread: the
# triggerer imports this module on its event loop when it rebuilds the trigger.

__all__ = ["ON_KILL_TIMEOUT", "DruidTaskTrigger"]

ON_KILL_TIMEOUT = 30.0


#: task-instance states in which the Druid task is still wanted: deferred (the trigger moved to another triggerer)
#: or on its way to a next try that adopts it (None after a clear, scheduled, queued, running, restarting,
#: up_for_retry, up_for_reschedule)
LIVE_STATES = frozenset({"deferred", None, "scheduled", "queued", "running", "restarting", "up_for_retry",
                         "up_for_reschedule"})
#: what :meth:`DruidTaskTrigger._ti_state` answers for a task instance that is gone or unreadable
ENDED = "ended"


class DruidTaskTrigger(DruidWaitTrigger):
    """Watch ``druid_task_id`` until terminal or ``end_time``, logging row-stats progress meanwhile.

    :param druid_task_id: the Druid task to wait for (deliberately not ``task_id``: ``BaseTrigger`` owns that)
    :param shutdown_on_kill: shut the Druid task down when a user ends the deferred Airflow task (mark
        failed/success). A clear never does (the next try adopts the task), nor a triggerer restart.
    :param log_progress: log a progress line when the phase changes or a fresh report arrives
    """

    def __init__(self, druid_task_id: str, *, shutdown_on_kill: bool = True, log_progress: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.druid_task_id = druid_task_id
        self.shutdown_on_kill = bool(shutdown_on_kill)
        self.log_progress = bool(log_progress)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return self._classpath(), {
            "druid_task_id": self.druid_task_id,
            "shutdown_on_kill": self.shutdown_on_kill,
            "log_progress": self.log_progress,
            **self._common_kwargs(),
        }

    def _wait(self, client: AsyncDruidClient) -> Awaitable[Any]:
        return client.watch_task(
            self.druid_task_id, self.end_time - time.time(), self.schedule, self._progress_logger()
        )

    def _errored(self, exc: Exception) -> Any:
        from druid_ingest.ops import TaskOutcome

        return TaskOutcome.errored(self.druid_task_id, exc)

    def _progress_logger(self) -> Any:
        """The wait's sink: the core's de-duplicated progress lines, or nothing with ``log_progress=False``."""
        from druid_ingest.ops import ProgressLines

        return ProgressLines(progress_log(type(self)), self.druid_task_id) if self.log_progress else no_progress

    async def on_kill(self) -> None:
        """A user ended the deferred task: shut the Druid task down (``cleanup`` never does).

        Airflow 3.3 cancels a trigger through this same path in three other cases, where the Druid task must live:
        the trigger was re-assigned to another triggerer (one that stalled past ``triggerer_health_check_threshold``
        and came back: the task is still ``deferred``), and the task instance was cleared (its state becomes None,
        then scheduled/queued/running as the next try starts and adopts the same Druid task: a clear is how users
        re-run, and killing the task it adopts cost a retry, issue 27). So on_kill reads the task instance's state
        and shuts down only when the try was ended for good (failed, success, skipped, upstream_failed, removed) or
        the task instance is gone; an unreadable state keeps the documented kill."""
        if not self.shutdown_on_kill:
            self.log.info("Not shutting down Druid task %s (shutdown_on_kill=False)", self.druid_task_id)
            return
        state = await self._ti_state()
        if state in LIVE_STATES:
            self.log.info("Not shutting down Druid task %s: its Airflow task is %s (moved to another triggerer, or "
                          "cleared: the next try adopts the same Druid task), not ended by a user",
                          self.druid_task_id, state or "cleared (no state)")
            return
        async with self._client() as client:
            await asyncio.wait_for(client.shutdown(self.druid_task_id), ON_KILL_TIMEOUT)
        self.log.info("Asked Druid to shut down task %s", self.druid_task_id)

    async def _ti_state(self) -> str | None:
        """The state of the task instance this trigger serves (asked through the triggerer's supervisor, in a
        thread: the SDK call is synchronous); :data:`ENDED` when it is gone or cannot be read."""
        ti = getattr(self, "task_instance", None)
        if ti is None:
            return ENDED
        try:
            from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance

            states = await asyncio.to_thread(RuntimeTaskInstance.get_task_states, dag_id=ti.dag_id,
                                             task_ids=[ti.task_id], run_ids=[ti.run_id], map_index=ti.map_index)
        except Exception as exc:  # no supervisor to ask, an older Airflow: behave as before
            self.log.warning("Could not read the state of %s/%s/%s (%s): taking the cancel for a user's kill",
                             ti.dag_id, ti.run_id, ti.task_id, exc)
            return ENDED
        key = ti.task_id if ti.map_index is None or ti.map_index < 0 else f"{ti.task_id}_{ti.map_index}"
        run = (states or {}).get(ti.run_id, {})
        if key not in run:
            return ENDED  # the task instance (or its run) is gone: nobody will adopt the Druid task
        state = run[key]
        return None if state is None else str(state)
