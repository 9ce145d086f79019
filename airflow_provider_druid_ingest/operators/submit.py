"""``DruidSubmitOperator``: plan and idempotently submit a Druid native batch ingestion task, return its id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow_provider_druid_ingest.links import push_task_refs
from airflow_provider_druid_ingest.operators.spec_operator import DruidSpecOperator

if TYPE_CHECKING:
    from airflow.sdk import Context

__all__ = ["DruidSubmitOperator"]


class DruidSubmitOperator(DruidSpecOperator):
    """Submit a Druid ingestion task (idempotently) and return its id; pair with the sensors to wait.

    Takes the parameters of :class:`~airflow_provider_druid_ingest.operators.spec_operator.DruidSpecOperator`.
    Pushes XCom ``druid_task_id`` (also the return value) and ``druid_task_url`` (console link).
    Once submitted the Druid task is on its own: killing this Airflow task does not shut it down.

    .. code-block:: python

        submit = DruidSubmitOperator(task_id="submit", spec="specs/events_web.json")
        wait = DruidTaskSensor(task_id="wait", druid_task_id="{{ ti.xcom_pull(task_ids='submit') }}")
    """

    def __init__(self, spec: dict[str, Any] | str, **kwargs: Any) -> None:
        super().__init__(spec=spec, **kwargs)

    def execute(self, context: Context) -> str:
        from druid_ingest.errors import DruidError

        from airflow_provider_druid_ingest.common.results import raise_for

        plan = self.plan(context)
        try:
            with self.hook.get_client() as client:
                self._check_capacity(client, plan)
                outcome = self.ensure(client, plan)
                url = client.config.console_task_url(outcome.task_id)
        except DruidError as exc:  # a fatal 4xx fails without burning retries; transient ones are retried
            raise_for(exc)
        push_task_refs(context, outcome.task_id, url)
        return outcome.task_id

    def on_kill(self) -> None:
        self.log.info("Submit-only operator killed: a submitted Druid task keeps running (nothing to shut down)")
