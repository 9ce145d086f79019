"""Airflow sensors: :class:`DruidTaskSensor` (task finished) and :class:`DruidHandoffSensor` (data queryable).

Names resolve lazily so importing one module does not import the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
    from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

_WHERE = {
    "DruidTaskSensor": "airflow_provider_druid_ingest.sensors.task",
    "DruidHandoffSensor": "airflow_provider_druid_ingest.sensors.handoff",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(name)


__all__ = ["DruidHandoffSensor", "DruidTaskSensor"]
