"""Pause a datasource's auto-compaction around a backfill, and resume it after (docs/lifecycle.md "A backfill and
compaction"): ``DruidPauseAutoCompactionOperator >> backfill >> DruidResumeAutoCompactionOperator``.

Both are the core's operation (``druid_ingest.ops.auto_compaction``) in the worker, with its log lines. The
pause's record is its XCom ``return_value`` (JSON); the resume pulls it from ``pause_task_id`` and runs with
``trigger_rule=ALL_DONE`` by default, so a failed backfill still gets its auto-compaction back. With no record (the
pause failed before it pushed one, or the XCom was cleared) the resume recovers the config our pause deleted from
Druid's audit history; a suspended supervisor it cannot attribute fails the task instead of guessing.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, NoReturn

from airflow.sdk import BaseOperator, TriggerRule
from airflow.sdk.exceptions import AirflowException
from druid_ingest.errors import DruidError

from airflow_provider_druid_ingest.common.settings import http_retry_arg
from airflow_provider_druid_ingest.hooks.druid import DruidHook

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.wire import RetryPolicy

__all__ = ["DruidPauseAutoCompactionOperator", "DruidResumeAutoCompactionOperator"]


class _AutoCompactionOperator(BaseOperator):
    template_fields: Sequence[str] = ("datasource",)
    ui_color = "#b3e5fc"

    def __init__(self, *, datasource: str, druid_conn_id: str = DruidHook.default_conn_name,
                 http_retry: RetryPolicy | None = None, **kwargs: Any) -> None:
        self.http_retry = http_retry_arg(type(self).__name__, http_retry, kwargs)
        super().__init__(**kwargs)
        self.datasource = datasource
        self.druid_conn_id = druid_conn_id

    @cached_property
    def hook(self) -> DruidHook:
        return DruidHook(druid_conn_id=self.druid_conn_id, retry=self.http_retry)

    def _failed(self, exc: DruidError) -> NoReturn:
        from airflow_provider_druid_ingest.common.results import raise_for

        raise_for(exc)


class DruidPauseAutoCompactionOperator(_AutoCompactionOperator):
    """Pause ``datasource``'s auto-compaction; returns the record (XCom) the resume takes.

    :param datasource: the datasource (templated)
    :param adopt_suspended: a compaction supervisor found already suspended is this task's own earlier try's
        (default False: that fails the task, nothing changed)
    :param druid_conn_id: the ``druid_cluster`` connection

    A retry after the config was deleted returns it from Druid's audit history, so the record is never lost.
    """

    def __init__(self, *, adopt_suspended: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.adopt_suspended = adopt_suspended

    def execute(self, context: Context) -> dict[str, Any]:
        try:
            with self.hook.get_client() as client:
                record = client.pause_auto_compaction(self.datasource, adopt_suspended=self.adopt_suspended,
                                                      on_progress=lambda line: self.log.info("%s", line))
        except DruidError as exc:
            self._failed(exc)
        return dict(record.to_json())


class DruidResumeAutoCompactionOperator(_AutoCompactionOperator):
    """Put back what the pause saved; runs when everything upstream is done, failed or not.

    :param datasource: the datasource (templated; must be the record's)
    :param pause_task_id: the :class:`DruidPauseAutoCompactionOperator` whose XCom holds the record
    :param trigger_rule: default ``all_done``: a failed backfill still resumes
    :param druid_conn_id: the ``druid_cluster`` connection

    Idempotent; a compaction config re-created while paused is left as is (logged).
    """

    def __init__(self, *, pause_task_id: str = "pause_auto_compaction",
                 trigger_rule: str = TriggerRule.ALL_DONE, **kwargs: Any) -> None:
        super().__init__(trigger_rule=trigger_rule, **kwargs)
        self.pause_task_id = pause_task_id

    def execute(self, context: Context) -> str:
        record = context["ti"].xcom_pull(task_ids=self.pause_task_id)
        if record is not None and not isinstance(record, dict):
            raise AirflowException(f"record: the XCom of {self.pause_task_id!r} is no pause record: {record!r}")
        if record is None:
            self.log.warning("No pause record from %r: recovering what a pause deleted from Druid's audit history",
                             self.pause_task_id)
        try:
            with self.hook.get_client() as client:
                result = client.resume_auto_compaction(self.datasource, record,
                                                       on_progress=lambda line: self.log.info("%s", line))
        except DruidError as exc:
            self._failed(exc)
        return result.outcome
