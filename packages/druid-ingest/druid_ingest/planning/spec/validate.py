"""Pre-flight validation of a native batch task: every problem, each with its JSON path and what is valid.

Druid answers a bad spec with one 400 naming the first problem (or, for misspelled keys, with nothing at all,
since unknown keys are ignored). Checking locally before submission turns that into one complete list and
keeps a fatal 400 from burning retry budget.
"""

from __future__ import annotations

from typing import Any

from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning._ids import ID_RULES, MAX_ID_LENGTH, druid_id_problem
from druid_ingest.planning.spec import known_keys as kk
from druid_ingest.planning.spec._collect import Collector, json_type
from druid_ingest.planning.spec._deprecations import legacy_tuning_warnings
from druid_ingest.planning.spec._json_check import check_json_values
from druid_ingest.planning.spec._shape import as_task_shape, is_bare_spec
from druid_ingest.planning.spec._validate_io import check_io_config, check_tuning_config
from druid_ingest.planning.spec.buckets import misspelled_zone
from druid_ingest.planning.spec.intervals import parse_duration, parse_interval
from druid_ingest.planning.spec.jackson import read_int
from druid_ingest.planning.spec.kinds import other_kind_problem
from druid_ingest.planning.spec.preflight import PREFLIGHT_HINT

__all__ = ["find_problems", "find_warnings", "validate_spec"]

_GRANULARITY_VALID = (
    "one of " + ", ".join(kk.GRANULARITIES) + " (any case), or an object {type: period, period: 'P1D'} "
    "or {type: duration, duration: <ms>}"
)


def find_problems(spec: Any) -> list[SpecProblem]:
    """Every problem in a native batch task ``spec`` (task shape ``{"type": ..., "spec": {...}}``)."""
    c = Collector()
    if not isinstance(spec, dict):
        c.add("$", f"the task must be a JSON object, not {json_type(spec)}", valid='{"type": "index_parallel", ...}')
        return c.problems
    other = other_kind_problem(spec)  # a supervisor, compact/kill/hadoop task, or the removed firehose shape
    if other is not None:
        return [other]
    if is_bare_spec(spec):  # report the wrapper once, then the content under the paths it will have
        c.add("$", "is a bare ingestion spec, not a task", valid='{"type": "index_parallel", "spec": <this spec>}')
        return c.problems + find_problems(as_task_shape(spec))
    check_json_values(spec, c)
    c.unknown_keys(spec, "", kk.TASK_KEYS)
    task_type = _check_task_type(spec, c)
    if "id" in spec:
        _check_task_id(spec["id"], c)
    c.obj(spec, "context", "context", required=False)
    body = c.obj(spec, "spec", "spec")
    if body is None:
        return c.problems
    c.unknown_keys(body, "spec", kk.SPEC_KEYS)
    data_schema = c.obj(body, "dataSchema", "spec.dataSchema")
    io_config = c.obj(body, "ioConfig", "spec.ioConfig")
    # tuningConfig is optional (null too): Druid applies the IndexTuningConfig/ParallelIndexTuningConfig defaults
    given = body.get("tuningConfig") is not None
    tuning = c.obj(body, "tuningConfig", "spec.tuningConfig", required=False) if given else None
    tuning_ok = tuning is not None or not given
    # None = unknown (dataSchema or intervals already reported broken): skip cross-field interval checks
    intervals = _check_data_schema(data_schema, c) if data_schema is not None else None
    append = False
    if io_config is not None:
        append = check_io_config(io_config, task_type, intervals, c)
    if tuning_ok:
        check_tuning_config(tuning, task_type, intervals, append, c)
        if data_schema is not None and tuning is not None:
            _check_query_vs_segment_granularity(data_schema, tuning, c)
    return c.problems


_COARSENESS = ("NONE", "SECOND", "MINUTE", "FIVE_MINUTE", "TEN_MINUTE", "FIFTEEN_MINUTE", "THIRTY_MINUTE", "HOUR",
               "SIX_HOUR", "EIGHT_HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "ALL")


def _check_query_vs_segment_granularity(data_schema: dict[str, Any], tuning: dict[str, Any], c: Collector) -> None:
    """Druid 33 accepts queryGranularity coarser than segmentGranularity with range/single_dim partitioning,
    then fails every partial_dimension_distribution subtask (NPE in StringDistribution): stop it here."""
    gs = data_schema.get("granularitySpec")
    partitions = tuning.get("partitionsSpec")
    if not isinstance(gs, dict) or not isinstance(partitions, dict):
        return
    if partitions.get("type") not in ("range", "single_dim"):
        return
    query, segment = gs.get("queryGranularity"), gs.get("segmentGranularity", "DAY")
    if not (isinstance(query, str) and isinstance(segment, str)):
        return
    q, g = query.upper(), segment.upper()
    if q in _COARSENESS and g in _COARSENESS and _COARSENESS.index(q) > _COARSENESS.index(g):
        c.add(
            "spec.dataSchema.granularitySpec.queryGranularity",
            f"is coarser than segmentGranularity {segment!r}; with {partitions.get('type')} partitioning Druid "
            "accepts the spec and then fails every dimension-distribution subtask",
            value=query,
            valid=f"a granularity no coarser than {segment!r}, or a coarser segmentGranularity",
        )


def validate_spec(spec: Any) -> None:
    """Raise :class:`SpecValidationError` listing every problem, or return quietly if there are none."""
    problems = find_problems(spec)
    if problems:
        raise SpecValidationError(problems, PREFLIGHT_HINT)


def find_warnings(spec: Any) -> list[SpecProblem]:
    """Things Druid accepts but that probably do not do what the author meant (never errors)."""
    warnings: list[SpecProblem] = []
    tuning = _dig(spec, "spec", "tuningConfig")
    if isinstance(tuning, dict):
        for key in sorted(set(tuning) & kk.STREAMING_ONLY_TUNING_KEYS):
            warnings.append(
                SpecProblem(
                    f"spec.tuningConfig.{key}",
                    "is a streaming-ingestion setting; native batch ignores it",
                    value=tuning[key],
                    valid="remove it, or see the batch keys in Druid's native-batch tuningConfig docs",
                )
            )
        warnings.extend(legacy_tuning_warnings(tuning))  # only where Druid ignores the key
    return warnings


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _check_task_type(spec: dict[str, Any], c: Collector) -> str | None:
    valid = " or ".join(kk.TASK_TYPES)
    if "type" not in spec:
        c.add("type", "is required but missing", valid=valid)
        return None
    if spec["type"] not in kk.TASK_TYPES:
        c.add("type", "is not a native batch task type", value=spec["type"], valid=valid)
        return None
    return str(spec["type"])


def _check_task_id(task_id: Any, c: Collector) -> None:
    reason = druid_id_problem(task_id)
    if reason is None and len(task_id) > MAX_ID_LENGTH:
        reason = f"is {len(task_id)} characters long (Druid stores ids in VARCHAR(255) and in file names)"
    if reason:
        c.add(
            "id",
            f"invalid Druid task id: {reason}",
            value=task_id,
            valid=f"{ID_RULES}, at most {MAX_ID_LENGTH} characters, ideally [A-Za-z0-9._:-]",
        )


def _check_data_schema(ds: dict[str, Any], c: Collector) -> list[Any] | None:
    """Check ``spec.dataSchema``; return its intervals for cross-field checks (None if malformed)."""
    path = "spec.dataSchema"
    c.unknown_keys(ds, path, kk.DATA_SCHEMA_KEYS)
    if "dataSource" not in ds:
        c.add(f"{path}.dataSource", "is required but missing", valid=f"a datasource name: {ID_RULES}")
    else:
        reason = druid_id_problem(ds["dataSource"])
        if reason:
            c.add(
                f"{path}.dataSource",
                f"invalid datasource name: {reason}",
                value=ds["dataSource"],
                valid=f"a datasource name: {ID_RULES}",
            )
    _check_timestamp_spec(ds, c)
    dimension_names = _check_dimensions_spec(ds, c)
    _check_metrics_spec(ds, dimension_names, c)
    if "granularitySpec" not in ds:
        return []
    granularity = c.obj(ds, "granularitySpec", f"{path}.granularitySpec")
    return _check_granularity_spec(granularity, c) if granularity is not None else None


def _check_timestamp_spec(ds: dict[str, Any], c: Collector) -> None:
    path = "spec.dataSchema.timestampSpec"
    ts = c.obj(ds, "timestampSpec", path)
    if ts is None:
        return
    c.unknown_keys(ts, path, kk.TIMESTAMP_SPEC_KEYS)
    column = ts.get("column")
    if not isinstance(column, str) or not column:
        c.add(
            f"{path}.column",
            "is required (Druid would silently default to 'timestamp')",
            value=column,
            valid="the name of the input field holding the row timestamp",
        )


def _check_dimensions_spec(ds: dict[str, Any], c: Collector) -> set[str]:
    path = "spec.dataSchema.dimensionsSpec"
    dims_spec = c.obj(ds, "dimensionsSpec", path)
    names: set[str] = set()
    if dims_spec is None:
        return names
    c.unknown_keys(dims_spec, path, kk.DIMENSIONS_SPEC_KEYS)
    dims = dims_spec.get("dimensions", [])
    if not isinstance(dims, list):
        c.add(
            f"{path}.dimensions",
            f"must be an array, not {json_type(dims)}",
            value=dims,
            valid="an array of names or {name, type} objects",
        )
        return names
    for i, dim in enumerate(dims):
        name = dim.get("name") if isinstance(dim, dict) else dim
        if not isinstance(name, str) or not name:
            c.add(
                f"{path}.dimensions[{i}]",
                "must be a dimension name or an object with a non-empty 'name'",
                value=dim,
                valid='"country" or {"name": "country", "type": "string"}',
            )
            continue
        if name in names:
            c.add(
                f"{path}.dimensions[{i}]",
                f"duplicate dimension {name!r}",
                value=name,
                valid="each dimension listed once",
            )
        names.add(name)
    return names


def _check_metrics_spec(ds: dict[str, Any], dimension_names: set[str], c: Collector) -> None:
    path = "spec.dataSchema.metricsSpec"
    metrics = ds.get("metricsSpec", [])
    if metrics is None:
        return
    if not isinstance(metrics, list):
        c.add(
            path, f"must be an array, not {json_type(metrics)}", value=metrics, valid="an array of aggregator objects"
        )
        return
    seen: set[str] = set()
    for i, metric in enumerate(metrics):
        here = f"{path}[{i}]"
        if not isinstance(metric, dict):
            c.add(
                here,
                f"must be an object, not {json_type(metric)}",
                value=metric,
                valid='{"type": "longSum", "name": "...", "fieldName": "..."}',
            )
            continue
        kind, name = metric.get("type"), metric.get("name")
        if not isinstance(kind, str) or not kind:
            c.add(f"{here}.type", "is required", value=kind, valid="an aggregator type such as count, longSum")
        if not isinstance(name, str) or not name:
            c.add(f"{here}.name", "is required", value=name, valid="the output column name")
        elif name in seen or name in dimension_names:
            c.add(
                f"{here}.name",
                f"column {name!r} is defined more than once (dimensions/metrics)",
                value=name,
                valid="unique column names across dimensions and metrics",
            )
        else:
            seen.add(name)
        needs_field = isinstance(kind, str) and kind in kk.FIELD_AGGREGATORS
        if needs_field and not metric.get("fieldName") and not metric.get("expression"):
            c.add(
                f"{here}.fieldName",
                f"is required for a {kind} aggregator",
                valid="the input column to aggregate (or an 'expression')",
            )


def _check_granularity_spec(gs: dict[str, Any], c: Collector) -> list[Any] | None:
    path = "spec.dataSchema.granularitySpec"
    c.unknown_keys(gs, path, kk.GRANULARITY_SPEC_KEYS)
    if "type" in gs and gs["type"] not in kk.GRANULARITY_SPEC_TYPES:
        c.add(
            f"{path}.type",
            "unknown granularitySpec type",
            value=gs["type"],
            valid=" or ".join(kk.GRANULARITY_SPEC_TYPES),
        )
    for key in ("segmentGranularity", "queryGranularity"):
        if key in gs:
            _check_granularity(gs[key], f"{path}.{key}", c)
    c.boolean(gs, "rollup", f"{path}.rollup")
    intervals = gs.get("intervals")
    if intervals is None:
        return []
    if not isinstance(intervals, list):
        c.add(
            f"{path}.intervals",
            f"must be an array of ISO-8601 intervals, not {json_type(intervals)}",
            value=intervals,
            valid='["2026-01-01/2026-01-02"]',
        )
        return None
    for i, interval in enumerate(intervals):
        try:
            parse_interval(interval)
        except ValueError as exc:
            c.add(
                f"{path}.intervals[{i}]",
                str(exc),
                valid="<start>/<end>, <start>/<period> or <period>/<end>, e.g. 2026-01-01/P1D",
            )
    return intervals


def _check_granularity(value: Any, path: str, c: Collector) -> None:
    if isinstance(value, str):
        if value.upper() not in kk.GRANULARITIES:
            c.add(path, "unknown granularity", value=value, valid=_GRANULARITY_VALID)
        return
    if isinstance(value, dict):
        kind = str(value.get("type", "")).lower()
        if kind in ("all", "none"):
            return
        if kind == "period":
            try:
                parse_duration(str(value.get("period") or ""))
            except ValueError:
                c.add(f"{path}.period", "must be an ISO-8601 period", value=value.get("period"), valid="e.g. PT1H")
            if real := misspelled_zone(value.get("timeZone")):
                c.add(f"{path}.timeZone", "is not a zone id Druid knows: zone ids are case-sensitive, and Druid "
                      "reads an unknown one as UTC (its buckets would be UTC ones, not this zone's)",
                      value=value.get("timeZone"), valid=repr(real))
            return
        if kind == "duration":
            ms = value.get("duration")
            read = read_int(ms)
            if not isinstance(read, int) or read <= 0:
                c.add(f"{path}.duration", "must be a positive number of milliseconds", value=ms, valid="e.g. 3600000")
            return
    c.add(path, "unknown granularity", value=value, valid=_GRANULARITY_VALID)
