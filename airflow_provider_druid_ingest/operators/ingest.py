"""``DruidIngestOperator``: one task from a native Druid spec to queryable data (submit, wait, handoff gate).

The spec's fields are :class:`DruidSpecOperator`'s, the submit, the wait and the gate
:class:`DruidWorkOperator`'s (generic over the plan); this class only joins them.
"""

from __future__ import annotations

from typing import Any

from druid_ingest.planning import task_slots

from airflow_provider_druid_ingest.operators.spec_operator import DruidSpecOperator
from airflow_provider_druid_ingest.operators.work import DruidWorkOperator

__all__ = ["DruidIngestOperator"]


def _static_slots(spec: Any) -> int:
    if not isinstance(spec, dict):
        return 1
    try:
        return max(1, task_slots(spec))
    except Exception:
        return 1


class DruidIngestOperator(DruidWorkOperator, DruidSpecOperator):
    """Ingest a native Druid spec and finish only when the new data is queryable.

    Takes every parameter of :class:`~airflow_provider_druid_ingest.operators.spec_operator.DruidSpecOperator`
    (``spec``, ``datasource``, ``intervals``, ``input_locations``, ``idempotency_key``, ``druid_conn_id``,
    ``http_retry``, ``allow_unaligned``, ``preflight``, ...) and of
    :class:`~airflow_provider_druid_ingest.operators.work.DruidWorkOperator` (``wait_for_handoff``, ``append``,
    ``on_never``, ``allow_empty``, timeouts, polling, ``shutdown_on_kill``, ``deferrable``, ...). ``allow_empty``
    also turns off the input probe of a ``dropExisting`` replace, which by default fails before submitting
    anything when Druid's sampler reads no row from the input.

    ``pool_slots`` defaults to the spec's peak Druid task slots (``k+1`` for a parallel ``index_parallel`` with
    ``maxNumConcurrentSubTasks=k``, else 1) when ``spec`` is a dict; 1 for a template file. ``append`` defaults
    to the spec's ``ioConfig.appendToExisting``.
    """

    def __init__(self, spec: dict[str, Any] | str, **kwargs: Any) -> None:
        super().__init__(spec=spec, **kwargs)

    @classmethod
    def _default_pool_slots(cls, kwargs: dict[str, Any]) -> int:
        return _static_slots(kwargs.get("spec"))
