"""Airflow operators: :class:`DruidSubmitOperator` (submit only) and :class:`DruidIngestOperator` (one-shot).

Names resolve lazily so importing one module does not import the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
    from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator

_WHERE = {
    "DruidSubmitOperator": "airflow_provider_druid_ingest.operators.submit",
    "DruidIngestOperator": "airflow_provider_druid_ingest.operators.ingest",
    "DruidMsqIngestOperator": "airflow_provider_druid_ingest.operators.msq",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(name)


__all__ = ["DruidIngestOperator", "DruidMsqIngestOperator", "DruidSubmitOperator"]
