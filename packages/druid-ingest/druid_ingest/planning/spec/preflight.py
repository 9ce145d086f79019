"""The pre-flight escape hatch: ``preflight="warn"`` submits a spec the check refuses, with every problem a warning.

Pre-flight mirrors Druid's rules; where it is wrong (a Druid version that reads a spec differently, a rule we
misread), refusing a spec Druid would run blocks the user with no way out. The hatch is that way out, named in
every refusal. A few problems stay fatal under "warn", because this package's own code needs the answer:

- values with no JSON form (NaN, sets, bytes, non-string keys): the spec cannot be serialized, hashed for the
  task id, or sent;
- no datasource (a string): the task id, the lock check and the handoff gate are all keyed by it;
- intervals that do not parse: the handoff gate and the timeline reads parse them to know what to wait for.

An unaligned replace is not lifted by the hatch either: it has its own opt-in, ``allow_unaligned`` (it is not a
doubt about Druid's rules but a certain data loss, see ``spec.alignment``).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from druid_ingest.errors import SpecProblem
from druid_ingest.planning.spec._collect import Collector
from druid_ingest.planning.spec._json_check import check_json_values
from druid_ingest.planning.spec._shape import as_task_shape
from druid_ingest.planning.spec.intervals import parse_interval

__all__ = ["FATAL_HINT", "PREFLIGHT_HINT", "RENDER_HINT", "Preflight", "check_preflight", "fatal_problems"]

Preflight = Literal["fail", "warn"]

PREFLIGHT_HINT = (
    "If Druid accepts this spec and the check is wrong, pass preflight='warn' (CLI: validate --preflight warn) "
    "to submit it as is, with every problem logged as a warning."
)
FATAL_HINT = (
    "preflight='warn' does not lift these: without a JSON-serializable spec, a datasource and parseable intervals "
    "this package cannot build the task id or check the handoff."
)
RENDER_HINT = "preflight='warn' does not apply: the template could not be turned into a spec at all."


def check_preflight(preflight: Any) -> Preflight:
    """``preflight`` itself, or ValueError naming the valid values."""
    if preflight not in get_args(Preflight):
        raise ValueError(f"preflight must be 'fail' (the default) or 'warn', not {preflight!r}")
    value: Preflight = preflight
    return value


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def fatal_problems(spec: Any) -> list[SpecProblem]:
    """The problems that stay fatal under ``preflight="warn"`` (see the module docstring for why)."""
    c = Collector()
    check_json_values(spec, c)
    spec = as_task_shape(spec)
    datasource = _dig(spec, "spec", "dataSchema", "dataSource")
    if not isinstance(datasource, str) or not datasource:
        c.add("spec.dataSchema.dataSource", "is required (the task id and the handoff check are keyed by it)",
              value=datasource, valid="a datasource name (or pass datasource=)")
    intervals = _dig(spec, "spec", "dataSchema", "granularitySpec", "intervals")
    for i, interval in enumerate(intervals if isinstance(intervals, list) else []):
        try:
            parse_interval(interval)
        except (ValueError, TypeError) as exc:
            c.add(f"spec.dataSchema.granularitySpec.intervals[{i}]",
                  f"{exc} (the handoff check parses it)", value=interval, valid="an ISO-8601 interval")
    if intervals is not None and not isinstance(intervals, list):
        c.add("spec.dataSchema.granularitySpec.intervals", "must be an array (the handoff check reads it)",
              value=intervals, valid='["2026-01-01/2026-01-02"]')
    return c.problems
