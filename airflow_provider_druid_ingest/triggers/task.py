"""``DruidTaskTrigger``: wait in the triggerer for a Druid task to reach SUCCESS or FAILED.

Triggers only *poll an existing task*: no trigger ever submits, so a triggerer restart (which rebuilds the
trigger from :meth:`serialize` and runs :meth:`run` from the start) just resumes polling. Deadlines are
absolute epoch seconds for the same reason. Every outcome, errors included, is exactly one event:

``{"status": "success"|"failed"|"timeout"|"error", "druid_task_id", "message", "summary", "summary_text",
"version_ceiling"}``

``summary`` is the task report as primitives (``ReportSummary.to_dict()``) and ``summary_text`` its
multi-line rendering (row stats, full ``errorMsg``, first unparseable events), both ``None`` without a report.
For ``failed`` the ``message`` is the ``DruidTaskFailedError`` text (full errorMsg, row stats, first unparseable
events, bounded), so the exception an alert sees explains the failure. ``version_ceiling`` is the instant the
wait saw the task holding its lock (the handoff gate needs it), or None.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from airflow_provider_druid_ingest.core.errors import DruidError
from airflow_provider_druid_ingest.core.models import SUCCESS, TaskStatus
from airflow_provider_druid_ingest.core.retry import PollSchedule, RetryPolicy
from airflow_provider_druid_ingest.hooks.druid import DruidHook

if TYPE_CHECKING:
    from airflow_provider_druid_ingest.core.async_client import AsyncDruidClient
    from airflow_provider_druid_ingest.core.sync_client import DruidClient

DEFAULT_WAIT = 7 * 24 * 3600.0
ON_KILL_TIMEOUT = 30.0
TASK_EVENT_STATUSES = frozenset({"success", "failed", "timeout", "error"})


def make_event(
    status: str, druid_task_id: str, message: str, summary: Any = None, version_ceiling: str | None = None
) -> dict[str, Any]:
    """The one event shape of :class:`DruidTaskTrigger` (also built by operators that skip deferral)."""
    return {
        "status": status,
        "druid_task_id": druid_task_id,
        "message": message,
        "summary": summary.to_dict() if summary is not None else None,
        "summary_text": summary.format() if summary is not None else None,
        "version_ceiling": version_ceiling,
    }


def task_event(status: TaskStatus, summary: Any = None) -> dict[str, Any]:
    """The event for a terminal :class:`TaskStatus` and its parsed report (``ReportSummary`` or None)."""
    from airflow_provider_druid_ingest.core.reports import task_failed_error

    if status.state == SUCCESS:
        message = f"Druid task {status.task_id} SUCCESS"
        return make_event("success", status.task_id, message, summary, status.version_ceiling)
    message = str(task_failed_error(status, summary))
    return make_event("failed", status.task_id, message, summary, status.version_ceiling)


def validate_event(event: Any, statuses: frozenset[str] = TASK_EVENT_STATUSES) -> dict[str, Any]:
    """A resumed task can receive None or an unknown status: both must fail loudly."""
    from airflow.sdk.exceptions import AirflowException

    if not isinstance(event, dict) or event.get("status") not in statuses:
        raise AirflowException(f"unexpected trigger event {event!r}; expected a dict with status in {sorted(statuses)}")
    return event


class DruidPollingTrigger(BaseTrigger):
    """Shared knobs of the Druid triggers: connection, absolute deadline, capped poll backoff, retry policy.

    :param conn_id: the ``druid_cluster`` connection id (never credentials: trigger kwargs are stored)
    :param end_time: epoch seconds after which the trigger gives up with a ``timeout`` event
    :param poll_interval: first delay between polls (seconds), growing by ``poll_multiplier``
    :param max_poll_interval: cap of the delay between polls
    :param retry: ``RetryPolicy.to_dict()`` for each HTTP call (None: the core's default policy)
    """

    def __init__(
        self,
        *,
        conn_id: str = DruidHook.default_conn_name,
        end_time: float | None = None,
        poll_interval: float = 5.0,
        max_poll_interval: float = 60.0,
        poll_multiplier: float = 1.5,
        retry: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.conn_id = conn_id
        self.end_time = float(end_time) if end_time is not None else time.time() + DEFAULT_WAIT
        self.poll_interval = float(poll_interval)
        self.max_poll_interval = float(max_poll_interval)
        self.poll_multiplier = float(poll_multiplier)
        self.retry = dict(retry) if retry else None

    def _common_kwargs(self) -> dict[str, Any]:
        return {
            "conn_id": self.conn_id,
            "end_time": self.end_time,
            "poll_interval": self.poll_interval,
            "max_poll_interval": self.max_poll_interval,
            "poll_multiplier": self.poll_multiplier,
            "retry": self.retry,
        }

    def _classpath(self) -> str:
        return f"{type(self).__module__}.{type(self).__qualname__}"

    async def _client(self) -> AsyncDruidClient:
        hook = DruidHook(druid_conn_id=self.conn_id, retry=RetryPolicy(**self.retry) if self.retry else None)
        return await hook.get_async_client()

    async def _sleep(self, polls: int) -> bool:
        """Sleep before the next poll; False when the deadline has passed (time to send a timeout event)."""
        remaining = self.end_time - time.time()
        if remaining <= 0:
            return False
        schedule = PollSchedule(self.poll_interval, self.max_poll_interval, self.poll_multiplier)
        await asyncio.sleep(min(schedule.delay(polls), remaining))
        return True

    async def run(self) -> AsyncIterator[TriggerEvent]:
        yield TriggerEvent(await self._wait())

    async def _wait(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError


class DruidTaskTrigger(DruidPollingTrigger):
    """Poll ``/status`` of ``druid_task_id`` until terminal or ``end_time``; log row-stats progress meanwhile.

    :param druid_task_id: the Druid task to wait for (deliberately not ``task_id``: ``BaseTrigger`` owns that)
    :param shutdown_on_kill: shut the Druid task down when a user kills the deferred Airflow task
        (mark failed/success, clear). Triggerer restarts never shut it down.
    :param log_progress: fetch the task report on each poll while RUNNING and log a progress line
    """

    def __init__(
        self,
        druid_task_id: str,
        *,
        shutdown_on_kill: bool = True,
        log_progress: bool = True,
        **kwargs: Any,
    ) -> None:
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

    def _event(self, status: str, message: str) -> dict[str, Any]:
        return make_event(status, self.druid_task_id, message)

    async def _wait(self) -> dict[str, Any]:
        try:
            async with await self._client() as client:
                polls = 0
                ceiling: str | None = None
                while True:
                    status = await client.observe_task(self.druid_task_id, ceiling)
                    ceiling = status.version_ceiling
                    if status.is_terminal:
                        return await self._terminal_event(client, status)
                    if self.log_progress:
                        await self._log_progress(client, status)
                    polls += 1
                    if not await self._sleep(polls):
                        return self._event(
                            "timeout", f"Druid task {self.druid_task_id} still {status.phase} at the deadline"
                        )
        except Exception as exc:  # one "error" event, never a raise: the task decides what to do
            return self._event("error", f"waiting for Druid task {self.druid_task_id} failed: {exc}")

    async def _terminal_event(self, client: AsyncDruidClient, status: TaskStatus) -> dict[str, Any]:
        return task_event(status, await report_summary(client, self.druid_task_id))

    async def _log_progress(self, client: AsyncDruidClient, status: TaskStatus) -> None:
        summary = await report_summary(client, self.druid_task_id)
        if summary is None:
            self.log.info("Druid task %s %s: no report yet", self.druid_task_id, status.phase)
        else:
            self.log.info("Druid task %s: %s", status.phase, summary.progress_line())

    async def on_kill(self) -> None:
        """A user killed the deferred task: shut the Druid task down (``cleanup`` never does)."""
        if not self.shutdown_on_kill:
            self.log.info("Not shutting down Druid task %s (shutdown_on_kill=False)", self.druid_task_id)
            return
        async with await self._client() as client:
            await asyncio.wait_for(client.shutdown(self.druid_task_id), ON_KILL_TIMEOUT)
        self.log.info("Asked Druid to shut down task %s", self.druid_task_id)


def summary_of(body: Any) -> Any:
    """``parse_report(body)`` (a ``ReportSummary``) or None; an odd report never fails a wait."""
    from airflow_provider_druid_ingest.core.reports import parse_report

    try:
        return parse_report(body) if body else None
    except Exception:
        return None


async def report_summary(client: AsyncDruidClient, druid_task_id: str) -> Any:
    """The task's parsed report or None (not written yet, or not readable)."""
    try:
        return summary_of(await client.report(druid_task_id))
    except DruidError:
        return None


def report_summary_sync(client: DruidClient, druid_task_id: str) -> Any:
    """Sync twin of :func:`report_summary` for operators and sensors running in a worker."""
    try:
        return summary_of(client.report(druid_task_id))
    except DruidError:
        return None
