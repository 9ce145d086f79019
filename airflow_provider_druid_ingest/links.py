"""``DruidTaskLink``: the "Druid task" button on a task instance, pointing at the Druid web console.

Operators push the full console URL to XCom (key ``druid_task_url``) *before* deferring, so the link
works while the task waits. The URL is built from the connection's host or ``console_url`` extra, with
any user-info stripped: it never carries credentials.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperatorLink

if TYPE_CHECKING:
    from airflow.sdk import BaseOperator
    from airflow.sdk.types import TaskInstanceKey

__all__ = ["XCOM_SERVED_BY", "XCOM_TASK_ID", "XCOM_TASK_URL", "XCOM_VERSION_CEILING", "DruidTaskLink", "push_task_refs"]

XCOM_TASK_ID = "druid_task_id"
XCOM_TASK_URL = "druid_task_url"
XCOM_VERSION_CEILING = "druid_version_ceiling"  # see core/handoff.py: tells this task's version from a later one
#: the Druid task whose version queries read for the interval once the gate passed: ours when ``loaded``, the
#: later task when ``superseded`` (None when Druid's task list does not tell), None for ``nothing``/``never``
XCOM_SERVED_BY = "druid_served_by_task"


def push_task_refs(context: Any, druid_task_id: str, url: str | None, *, push_id: bool = True) -> None:
    """Push the Druid task id and its console URL to XCom (call before deferring)."""
    ti = context["ti"]
    if push_id:
        ti.xcom_push(key=XCOM_TASK_ID, value=druid_task_id)
    if url:
        ti.xcom_push(key=XCOM_TASK_URL, value=url)


class DruidTaskLink(BaseOperatorLink):
    """Link to the Druid task in the web console."""

    name = "Druid task"

    def get_link(self, operator: BaseOperator, *, ti_key: TaskInstanceKey) -> str:
        from airflow.sdk.execution_time.xcom import XCom

        url = XCom.get_value(key=XCOM_TASK_URL, ti_key=ti_key)
        return url if isinstance(url, str) else ""
