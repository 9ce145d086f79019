"""``DruidIngestionTrigger``: one deferral for the whole wait of ``DruidIngestOperator``: the Druid task to its
end, then (after SUCCESS) its segments to queryable.

One trigger instead of two keeps both waits in one trigger log (Airflow rewrites that file on each deferral),
and the task instance does not have to win its pool slots again between the waits. The event is
:meth:`IngestionOutcome.to_dict`: ``{"status", "druid_task_id", "message", "task": <task event>, "handoff":
<handoff event or None>}``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from druid_ingest.api import HandoffResult
from druid_ingest.ops import DEFAULT_HANDOFF_TIMEOUT

from airflow_provider_druid_ingest.triggers.base import progress_log
from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

if TYPE_CHECKING:
    from druid_ingest.clients import AsyncDruidClient

__all__ = ["DruidIngestionTrigger"]


class DruidIngestionTrigger(DruidTaskTrigger):
    """Watch ``druid_task_id`` to its end, then its handoff gate (``end_time`` bounds the task wait).

    :param datasource: the task's datasource (empty: read from the task)
    :param intervals: the intervals whose chunks must be served (empty: the task's own)
    :param append: the task appends (``appendToExisting``): every used segment of each chunk must be served
    :param handoff_timeout: seconds for the handoff after the task ended; None to stop at SUCCESS
    :param submitted_at: epoch seconds the operator submitted the task (None: adopted); the first look comes
        ``poll_interval`` after it (a task submitted a moment ago cannot have ended yet)
    """

    def __init__(self, druid_task_id: str, *, datasource: str = "", intervals: list[str] | None = None,
                 append: bool = False, handoff_timeout: float | None = DEFAULT_HANDOFF_TIMEOUT,
                 submitted_at: float | None = None, **kwargs: Any) -> None:
        super().__init__(druid_task_id, **kwargs)
        self.datasource = datasource
        self.intervals = list(intervals or [])
        self.append = bool(append)
        self.handoff_timeout = float(handoff_timeout) if handoff_timeout is not None else None
        self.submitted_at = float(submitted_at) if submitted_at is not None else None

    def serialize(self) -> tuple[str, dict[str, Any]]:
        classpath, kwargs = super().serialize()
        return classpath, {
            **kwargs,
            "datasource": self.datasource,
            "intervals": self.intervals,
            "append": self.append,
            "handoff_timeout": self.handoff_timeout,
            "submitted_at": self.submitted_at,
        }

    def _wait(self, client: AsyncDruidClient) -> Awaitable[Any]:
        return client.watch_ingestion(
            self.druid_task_id, self.datasource, self.intervals, self.append, task_deadline=self.end_time,
            handoff_timeout=self.handoff_timeout, schedule=self.schedule, on_progress=self._progress(),
            submitted_at=self.submitted_at,
        )

    def _errored(self, exc: Exception) -> Any:  # one "error" event, never a raise (``DruidTaskTrigger.run``)
        from druid_ingest.ops import IngestionOutcome, TaskOutcome

        return IngestionOutcome(TaskOutcome.errored(self.druid_task_id, exc))

    def _progress(self) -> Any:
        """The task's progress lines (``log_progress``) and every change of the gate's verdict, one sink."""
        from druid_ingest.ops import ProgressLines

        lines = ProgressLines(progress_log(type(self)), self.druid_task_id)
        log_task = self.log_progress

        def sink(item: Any) -> None:
            if log_task or isinstance(item, HandoffResult):
                lines(item)

        return sink
