"""Planning: the ingestion plan, spec pre-flight (``spec``), pinned task ids, MSQ statement planning and
partition checks, lineage mapping. Pure Python (plus jinja2): no HTTP.

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from ._compaction import CompactionPlan, build_compaction_plan
    from ._drop import DropPlan, build_drop_plan
    from ._ids import attempt_id, base_task_id
    from ._kill import KillPlan, build_kill_plan
    from ._lineage import DatasetRef, druid_dataset, druid_namespace, spec_input_datasets
    from ._msq import SQL_TASK_PATH, MsqPlan, build_msq_plan
    from ._plan import IngestionPlan, build_plan
    from ._restore import RestorePlan, build_restore_plan
    from ._segment_write import SegmentWrite, SegmentWriteApi, SegmentWritePlan, segment_write_api
    from ._versions import druid_release
    from ._work import Plan, WorkKind
    from .spec.alignment import ScheduleTerms
    from .spec.facts import IngestionMode, SpecFacts, spec_facts, task_slots
    from .spec.intervals import Period, parse_duration, parse_instant, parse_interval
    from .spec.preflight import Preflight, check_preflight
    from .spec.render import TemplateSource, load_template, render_spec, render_text
    from .spec.validate import find_problems, find_warnings, validate_spec

#: where each public name lives
_WHERE = {
    "DropPlan": "_drop",
    "KillPlan": "_kill",
    "RestorePlan": "_restore",
    "build_restore_plan": "_restore",
    "build_drop_plan": "_drop",
    "SegmentWrite": "_segment_write",
    "SegmentWriteApi": "_segment_write",
    "SegmentWritePlan": "_segment_write",
    "segment_write_api": "_segment_write",
    "druid_release": "_versions",
    "build_kill_plan": "_kill",
    "CompactionPlan": "_compaction",
    "build_compaction_plan": "_compaction",
    "DatasetRef": "_lineage",
    "IngestionMode": "spec.facts",
    "IngestionPlan": "_plan",
    "Plan": "_work",
    "WorkKind": "_work",
    "MsqPlan": "_msq",
    "Period": "spec.intervals",
    "Preflight": "spec.preflight",
    "SQL_TASK_PATH": "_msq",
    "ScheduleTerms": "spec.alignment",
    "SpecFacts": "spec.facts",
    "TemplateSource": "spec.render",
    "attempt_id": "_ids",
    "base_task_id": "_ids",
    "build_msq_plan": "_msq",
    "build_plan": "_plan",
    "check_preflight": "spec.preflight",
    "druid_dataset": "_lineage",
    "druid_namespace": "_lineage",
    "find_problems": "spec.validate",
    "find_warnings": "spec.validate",
    "load_template": "spec.render",
    "parse_duration": "spec.intervals",
    "parse_instant": "spec.intervals",
    "parse_interval": "spec.intervals",
    "render_spec": "spec.render",
    "render_text": "spec.render",
    "spec_facts": "spec.facts",
    "spec_input_datasets": "_lineage",
    "task_slots": "spec.facts",
    "validate_spec": "spec.validate",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "SQL_TASK_PATH",
    "CompactionPlan",
    "DatasetRef",
    "DropPlan",
    "IngestionMode",
    "IngestionPlan",
    "KillPlan",
    "MsqPlan",
    "Period",
    "Plan",
    "Preflight",
    "RestorePlan",
    "ScheduleTerms",
    "SegmentWrite",
    "SegmentWriteApi",
    "SegmentWritePlan",
    "SpecFacts",
    "TemplateSource",
    "WorkKind",
    "attempt_id",
    "base_task_id",
    "build_compaction_plan",
    "build_drop_plan",
    "build_kill_plan",
    "build_msq_plan",
    "build_plan",
    "build_restore_plan",
    "check_preflight",
    "druid_dataset",
    "druid_namespace",
    "druid_release",
    "find_problems",
    "find_warnings",
    "load_template",
    "parse_duration",
    "parse_instant",
    "parse_interval",
    "render_spec",
    "render_text",
    "segment_write_api",
    "spec_facts",
    "spec_input_datasets",
    "task_slots",
    "validate_spec",
]
