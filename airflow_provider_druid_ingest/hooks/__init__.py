"""Airflow hooks: :class:`DruidHook` (connection type ``druid_cluster``)."""

from airflow_provider_druid_ingest.hooks.druid import DruidHook

__all__ = ["DruidHook"]
