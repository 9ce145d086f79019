"""Spec templates, per-run injection, pre-flight validation and the facts a spec implies.

Pure Python (plus jinja2): no Airflow, no Dagster, no network, so every face shares one implementation.
"""

from airflow_provider_druid_ingest.core.spec.facts import IngestionMode, SpecFacts, spec_facts, task_slots
from airflow_provider_druid_ingest.core.spec.intervals import Period, parse_duration, parse_instant, parse_interval
from airflow_provider_druid_ingest.core.spec.render import load_template, render_spec, render_text
from airflow_provider_druid_ingest.core.spec.validate import find_problems, find_warnings, validate_spec

__all__ = [
    "IngestionMode",
    "Period",
    "SpecFacts",
    "find_problems",
    "find_warnings",
    "load_template",
    "parse_duration",
    "parse_instant",
    "parse_interval",
    "render_spec",
    "render_text",
    "spec_facts",
    "task_slots",
    "validate_spec",
]
