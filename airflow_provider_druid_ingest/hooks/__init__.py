"""Airflow hooks: :class:`DruidHook` and :class:`DruidSqlHook` (the ``druid_cluster`` connection's, for common.sql).

Names resolve lazily (from :data:`airflow_provider_druid_ingest.registry.REGISTRY`), so importing one module
does not import the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from airflow_provider_druid_ingest.registry import lazy_getattr

if TYPE_CHECKING:
    from airflow_provider_druid_ingest.hooks.druid import DruidHook
    from airflow_provider_druid_ingest.hooks.druid_sql import DruidSqlHook

__getattr__ = lazy_getattr("hooks")

# a literal for type checkers; tests/airflow/test_registration.py holds it to the table
__all__ = ["DruidHook", "DruidSqlHook"]
