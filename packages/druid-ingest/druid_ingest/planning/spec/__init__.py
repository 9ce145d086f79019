"""Spec templates, per-run injection, pre-flight validation and the facts a spec implies.

Pure Python (plus jinja2): no Airflow, no Dagster, no network, so every face shares one implementation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from druid_ingest.planning.spec.facts import IngestionMode, SpecFacts, spec_facts, task_slots
    from druid_ingest.planning.spec.intervals import Period, parse_duration, parse_instant, parse_interval
    from druid_ingest.planning.spec.render import load_template, render_spec, render_text
    from druid_ingest.planning.spec.validate import find_problems, find_warnings, validate_spec

#: resolved on first use: a DAG file asking for ``task_slots`` should not load the validator
_WHERE = {
    "IngestionMode": "facts", "SpecFacts": "facts", "spec_facts": "facts", "task_slots": "facts",
    "Period": "intervals", "parse_duration": "intervals", "parse_instant": "intervals", "parse_interval": "intervals",
    "load_template": "render", "render_spec": "render", "render_text": "render",
    "find_problems": "validate", "find_warnings": "validate", "validate_spec": "validate",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


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
