"""Airflow triggers (run in the triggerer): wait for a Druid task, then for its segments to be served
(or, after a segment write such as a drop, for an interval's served state); and an AssetWatcher's, on what Druid serves.

Names resolve lazily (from :data:`airflow_provider_druid_ingest.registry.REGISTRY`), so importing one module
does not import the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from airflow_provider_druid_ingest.registry import lazy_getattr

if TYPE_CHECKING:
    from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
    from airflow_provider_druid_ingest.triggers.ingestion import DruidIngestionTrigger
    from airflow_provider_druid_ingest.triggers.segment_state import DruidSegmentStateTrigger
    from airflow_provider_druid_ingest.triggers.served import DruidServedTrigger
    from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

__getattr__ = lazy_getattr("triggers")

# a literal for type checkers; tests/airflow/test_registration.py holds it to the table
__all__ = ["DruidHandoffTrigger", "DruidIngestionTrigger", "DruidSegmentStateTrigger", "DruidServedTrigger",
           "DruidTaskTrigger"]
