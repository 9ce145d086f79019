"""One ingestion plan: the spec rendered and validated exactly once, with everything derived from it.

Every face (the Airflow operators, the CLI, the Dagster assets) turns (template or spec, datasource, intervals,
input locations, idempotency key) into an :class:`IngestionPlan` with :func:`build_plan` and hands that to the
client. Nothing downstream re-renders, re-validates or re-reads the spec: the datasource, the intervals, the
mode, the peak task slots, the deterministic base task id and the warnings are fields of the plan.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from druid_ingest.errors import SpecValidationError
from druid_ingest.planning._ids import base_task_id, canonical_json
from druid_ingest.planning._work import NATIVE_TASK_PATH, WorkKind
from druid_ingest.planning.spec import find_problems, find_warnings, render_spec, spec_facts
from druid_ingest.planning.spec.alignment import AIRFLOW_TERMS, ScheduleTerms, alignment_findings
from druid_ingest.planning.spec.facts import IngestionMode
from druid_ingest.planning.spec.preflight import FATAL_HINT, PREFLIGHT_HINT, Preflight, check_preflight, fatal_problems
from druid_ingest.planning.spec.render import TemplateSource
from druid_ingest.wire import Request

__all__ = ["IngestionPlan", "build_plan"]


@dataclass(frozen=True)
class IngestionPlan:
    """A valid, rendered task spec and what it implies. Build it with :func:`build_plan`.

    The spec is kept as canonical JSON so the plan is immutable and hashable; :attr:`spec` returns a fresh dict.
    """

    spec_json: str
    datasource: str
    intervals: tuple[str, ...]
    mode: IngestionMode
    peak_slots: int
    base_task_id: str
    warnings: tuple[str, ...] = ()

    @property
    def spec(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.spec_json)
        return value

    @property
    def kind(self) -> WorkKind:
        return "native"

    @property
    def append(self) -> bool:
        return self.mode == "APPEND"

    @property
    def probes_input(self) -> bool:
        """A ``dropExisting`` replace: over an empty input Druid writes tombstones, so its input is probed."""
        return self.mode == "REPLACE"

    @property
    def publishes(self) -> bool:
        return True

    @property
    def runs_task(self) -> bool:
        return True

    @property
    def task_spec(self) -> dict[str, Any]:
        return self.spec

    def describe(self) -> str:
        """One line for a task log or the CLI."""
        return (
            f"{self.mode} into {self.datasource!r} for {', '.join(self.intervals) or 'the intervals in the data'}; "
            f"{self.peak_slots} Druid task slot(s) at peak; base task id {self.base_task_id}"
        )

    def submit_request(self, task_id: str) -> Request:
        """druid-contract §submit: the spec with its pinned ``id``, POSTed to the Overlord."""
        return Request("POST", "overlord", NATIVE_TASK_PATH, json_body={**self.spec, "id": task_id})


def build_plan(
    template: TemplateSource,
    *,
    datasource: str | None = None,
    intervals: list[str] | None = None,
    input_locations: list[str] | None = None,
    variables: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
    id_prefix: str = "ingest",
    allow_unaligned: bool = False,
    preflight: Preflight = "fail",
    schedule_terms: ScheduleTerms = AIRFLOW_TERMS,
) -> IngestionPlan:
    """Render ``template`` with the per-run values, validate it (SpecValidationError listing every problem, with
    its JSON path, before any HTTP) and derive the plan. JSON text, a ``.json`` path and Jinja text are all read
    by the one loader (``spec.render.load_template``).

    A replace whose intervals are not on ``segmentGranularity`` bucket boundaries is refused (it would overwrite
    the rest of each bucket it touches: ``spec.alignment``); ``allow_unaligned=True`` makes that a warning.
    ``schedule_terms``: how the calling face names its schedule in that refusal's fixes (Airflow's by default).

    ``preflight="warn"`` is the escape hatch for a check that is wrong about Druid: every pre-flight problem
    becomes a warning in :attr:`IngestionPlan.warnings` and the spec is submitted as is. It does not lift the
    problems this package's own code cannot work around (``spec.preflight.fatal_problems``: a value with no JSON
    form, no datasource, intervals that do not parse), nor an unaligned replace (that is ``allow_unaligned``)."""
    preflight = check_preflight(preflight)
    spec = render_spec(
        template, datasource=datasource, intervals=intervals, input_locations=input_locations, variables=variables
    )
    problems = find_problems(spec)
    if problems and preflight == "fail":
        raise SpecValidationError(problems, PREFLIGHT_HINT)
    fatal = fatal_problems(spec) if problems else []
    if fatal:
        raise SpecValidationError(fatal, FATAL_HINT)
    unaligned, notes = alignment_findings(spec, schedule_terms)
    if unaligned and not allow_unaligned:
        raise SpecValidationError(
            unaligned, "preflight='warn' does not lift this. Pre-flight reads the spec, not the datasource, so it "
            "cannot tell whether rows are stored in those hours (a new datasource, or one empty there, loses "
            f"nothing): it refuses rather than guess. When nothing is stored there, or the loss is intended, pass "
            f"{schedule_terms.opt_in}."
        )
    overridden = [f"pre-flight (preflight='warn', submitted anyway): {p}" for p in problems]
    facts = spec_facts(spec)
    ds = facts.datasource or ""
    return IngestionPlan(
        spec_json=canonical_json(spec),
        datasource=ds,
        intervals=tuple(facts.intervals),
        mode=facts.ingestion_mode,
        peak_slots=facts.task_slots,
        base_task_id=base_task_id(spec, ds, list(facts.intervals), idempotency_key or None, id_prefix),
        warnings=(*overridden, *(str(w) for w in [*find_warnings(spec), *unaligned, *notes])),
    )
