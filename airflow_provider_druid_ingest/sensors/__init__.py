"""Airflow sensors: :class:`DruidTaskSensor` (task finished) and :class:`DruidHandoffSensor` (data queryable).

Names resolve lazily (from :data:`airflow_provider_druid_ingest.registry.REGISTRY`), so importing one module
does not import the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from airflow_provider_druid_ingest.registry import lazy_getattr

if TYPE_CHECKING:
    from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
    from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

__getattr__ = lazy_getattr("sensors")

# a literal for type checkers; tests/airflow/test_registration.py holds it to the table
__all__ = ["DruidHandoffSensor", "DruidTaskSensor"]
