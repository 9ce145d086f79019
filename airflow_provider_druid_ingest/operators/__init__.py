"""Airflow operators: :class:`DruidSubmitOperator` (submit only), :class:`DruidIngestOperator` (one-shot)
and :class:`DruidMsqIngestOperator` (an MSQ INSERT/REPLACE statement), :class:`DruidCompactOperator` (a
compaction), :class:`DruidDropOperator` (stop serving an interval), :class:`DruidRestoreOperator` (serve a dropped
one again), :class:`DruidKillOperator` (the unused segments of an interval) and the pair
:class:`DruidPauseAutoCompactionOperator` / :class:`DruidResumeAutoCompactionOperator` (auto-compaction off around a
backfill).

Names resolve lazily (from :data:`airflow_provider_druid_ingest.registry.REGISTRY`), so importing one module
does not import the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from airflow_provider_druid_ingest.registry import lazy_getattr

if TYPE_CHECKING:
    from airflow_provider_druid_ingest.operators.auto_compaction import (
        DruidPauseAutoCompactionOperator,
        DruidResumeAutoCompactionOperator,
    )
    from airflow_provider_druid_ingest.operators.compact import DruidCompactOperator
    from airflow_provider_druid_ingest.operators.drop import DruidDropOperator
    from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
    from airflow_provider_druid_ingest.operators.kill import DruidKillOperator
    from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator
    from airflow_provider_druid_ingest.operators.restore import DruidRestoreOperator
    from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator

__getattr__ = lazy_getattr("operators")

# a literal for type checkers; tests/airflow/test_registration.py holds it to the table
__all__ = ["DruidCompactOperator", "DruidDropOperator", "DruidIngestOperator", "DruidKillOperator",
           "DruidMsqIngestOperator", "DruidPauseAutoCompactionOperator", "DruidRestoreOperator",
           "DruidResumeAutoCompactionOperator", "DruidSubmitOperator"]
