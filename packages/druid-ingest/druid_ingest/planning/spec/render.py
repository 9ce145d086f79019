"""Turn a spec template plus per-run values into the task JSON to submit.

One template serves every run; the orchestrator supplies only what changes per run (intervals, datasource,
input locations). Text templates are Jinja2 with ``StrictUndefined`` so a missing variable fails loudly
instead of rendering as an empty string inside a valid-looking spec. Dict templates are not re-rendered:
Airflow already renders templated dict fields, and rendering twice would make this function impure.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

from jinja2 import Environment, StrictUndefined, TemplateSyntaxError, Undefined, UndefinedError

from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning.spec._shape import as_task_shape
from druid_ingest.planning.spec.preflight import RENDER_HINT

__all__ = [
    "CLOUD_SCHEMES",
    "LOCATIONLESS_SOURCES",
    "TemplateSource",
    "inject_locations",
    "load_template",
    "render_spec",
    "render_sql",
    "render_text",
]

TemplateSource = dict[str, Any] | str | os.PathLike[str]

_JINJA_MARKERS = ("{{", "{%", "{#")

#: object-store input sources: accepted URI schemes (Druid's input-source documentation)
CLOUD_SCHEMES: dict[str, tuple[str, ...]] = {
    "s3": ("s3",),
    "google": ("gs",),
    "gs": ("gs",),
    "azure": ("azure",),
    "azureStorage": ("azureStorage",),
    "oss": ("oss",),
}
#: input sources that read no external locations
LOCATIONLESS_SOURCES: tuple[str, ...] = ("inline", "druid", "sql", "combining")
_SOURCE_PATH = "spec.ioConfig.inputSource"


def _fail(path: str, message: str, *, value: Any = None, valid: str | None = None) -> SpecValidationError:
    return SpecValidationError([SpecProblem(path, message, value=value, valid=valid)], RENDER_HINT)


def _looks_like_path(text: str) -> bool:
    candidate = text.strip()
    if not candidate or "\n" in candidate or candidate[0] in "{[":
        return False
    if candidate.endswith(".json"):
        return True
    try:
        return Path(candidate).is_file()
    except OSError:  # e.g. a name too long for the filesystem: it is template text
        return False


def _parse_plain_json(text: str) -> dict[str, Any] | str:
    """``text`` as a dict when it is a JSON object without Jinja markup, else the text itself."""
    if any(marker in text for marker in _JINJA_MARKERS):
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return parsed if isinstance(parsed, dict) else text


def load_template(source: TemplateSource) -> dict[str, Any] | str:
    """Load a template: a dict (deep-copied), a JSON file path, JSON text, or Jinja2 template text.

    JSON text containing Jinja markup (``{{``, ``{%``, ``{#``) stays text so its variables still get rendered.
    """
    if isinstance(source, dict):
        return copy.deepcopy(source)
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        return _parse_plain_json(Path(os.fspath(source).strip()).read_text(encoding="utf-8"))
    if isinstance(source, str):
        return _parse_plain_json(source)
    raise TypeError(f"a spec template must be a dict, a path or a string, not {type(source).__name__}")


def _strict_dumps(value: Any, **kwargs: Any) -> str:
    """``tojson`` that reports an undefined variable by name instead of "not JSON serializable"."""

    def default(obj: Any) -> Any:
        if isinstance(obj, Undefined):
            obj._fail_with_undefined_error()
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")

    return json.dumps(value, default=default, **kwargs)


def render_text(text: str, variables: dict[str, Any] | None = None) -> Any:
    """Render Jinja2 template text with ``variables`` and parse the result as JSON."""
    env = Environment(undefined=StrictUndefined, keep_trailing_newline=True)
    env.policies["json.dumps_function"] = _strict_dumps
    values = variables or {}
    valid_vars = "pass every variable the template uses in variables={...}"
    try:
        rendered = env.from_string(text).render(values)
    except UndefinedError as exc:
        raise _fail("template", f"undefined template variable: {exc.message}", valid=valid_vars) from exc
    except TemplateSyntaxError as exc:
        raise _fail(
            "template", f"Jinja2 syntax error at line {exc.lineno}: {exc.message}", valid="a valid Jinja2 template"
        ) from exc
    try:
        return json.loads(rendered)
    except json.JSONDecodeError as exc:
        lines = rendered.splitlines() or [""]
        line = lines[min(exc.lineno, len(lines)) - 1]
        pointer = " " * (exc.colno - 1) + "^"
        raise _fail(
            "template",
            f"rendered template is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}:\n      {line}\n      {pointer}",
            valid="JSON after rendering",
        ) from exc


def render_sql(text: str, variables: dict[str, Any] | None = None) -> str:
    """Render a Jinja2 SQL template (StrictUndefined: a missing variable is named, never rendered empty)."""
    env = Environment(undefined=StrictUndefined, keep_trailing_newline=True)
    try:
        return env.from_string(text).render(variables or {})
    except UndefinedError as exc:
        raise _fail("sql", f"undefined template variable: {exc.message}",
                    valid="interval_start, interval_end, interval, interval_date, datasource, or one passed in "
                    "variables") from exc
    except TemplateSyntaxError as exc:
        raise _fail("sql", f"Jinja2 syntax error at line {exc.lineno}: {exc.message}",
                    valid="a valid Jinja2 template") from exc


def _child(parent: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    """``parent[key]``, created empty when missing; an error when it is not an object."""
    value = parent.setdefault(key, {})
    if not isinstance(value, dict):
        raise _fail(path, "must be an object to inject per-run values into", value=value, valid="a JSON object")
    return value


def render_spec(
    template: TemplateSource,
    *,
    datasource: str | None = None,
    intervals: list[str] | str | None = None,
    input_locations: list[str] | str | None = None,
    variables: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Render ``template`` and inject the per-run values; returns a new task-shaped dict.

    ``variables`` apply to text templates only. A bare ingestion spec is wrapped as ``index_parallel``.
    The input is never mutated.
    """
    loaded = load_template(template)
    spec = render_text(loaded, variables) if isinstance(loaded, str) else loaded
    if not isinstance(spec, dict):
        raise _fail(
            "$",
            "the template must produce a JSON object",
            value=type(spec).__name__,
            valid='{"type": "index_parallel", "spec": {...}} or a bare ingestion spec',
        )
    spec = dict(as_task_shape(spec))
    if intervals is None and datasource is None and input_locations is None:
        return spec
    body = _child(spec, "spec", "spec")
    if intervals is not None or datasource is not None:
        data_schema = _child(body, "dataSchema", "spec.dataSchema")
        if datasource is not None:
            data_schema["dataSource"] = datasource
        if intervals is not None:
            granularity = _child(data_schema, "granularitySpec", "spec.dataSchema.granularitySpec")
            granularity["intervals"] = [intervals] if isinstance(intervals, str) else list(intervals)
    if input_locations is not None:
        io_config = _child(body, "ioConfig", "spec.ioConfig")
        source = io_config.get("inputSource")
        if not isinstance(source, dict) or not isinstance(source.get("type"), str):
            raise _fail(
                f"{_SOURCE_PATH}.type",
                "is needed to know where input locations go",
                value=source,
                valid="an inputSource object with a type (s3, google, azureStorage, local, http, hdfs, ...)",
            )
        locations = [input_locations] if isinstance(input_locations, str) else list(input_locations)
        inject_locations(source, locations)
    return spec


def inject_locations(source: dict[str, Any], locations: list[str]) -> None:
    """Put ``locations`` where ``source``'s type reads them (mutates ``source``)."""
    kind = source["type"]
    if not locations:
        raise _fail(_SOURCE_PATH, "input_locations is empty", valid="at least one location")
    if any(not isinstance(loc, str) or not loc for loc in locations):
        raise _fail(
            _SOURCE_PATH,
            "every input location must be a non-empty string",
            value=locations,
            valid="strings such as s3://bucket/path/",
        )
    if kind in CLOUD_SCHEMES:
        _inject_cloud(source, kind, locations)
    elif kind == "local":
        paths = [loc[len("file://") :] if loc.startswith("file://") else loc for loc in locations]
        if len(paths) == 1:  # one directory: read it with the template's filter (default: every file)
            source.pop("files", None)
            source["baseDir"] = paths[0]
            source.setdefault("filter", "*")
        else:
            source.pop("baseDir", None)
            source.pop("filter", None)
            source["files"] = paths
    elif kind == "http":
        bad = [(i, loc) for i, loc in enumerate(locations) if not loc.startswith(("http://", "https://"))]
        if bad:
            raise SpecValidationError(
                [
                    SpecProblem(
                        f"{_SOURCE_PATH}.uris[{i}]",
                        "is not an HTTP(S) URI",
                        value=loc,
                        valid="http://... or https://...",
                    )
                    for i, loc in bad
                ],
                RENDER_HINT,
            )
        source["uris"] = locations
    elif kind == "hdfs":
        source["paths"] = locations
    elif kind in LOCATIONLESS_SOURCES:
        raise _fail(
            f"{_SOURCE_PATH}.type",
            f"a {kind} input source takes no input locations",
            value=kind,
            valid="omit input_locations, or use a file/object-store input source",
        )
    else:
        raise _fail(
            f"{_SOURCE_PATH}.type",
            "cannot inject input locations into this input source type",
            value=kind,
            valid=", ".join([*CLOUD_SCHEMES, "local", "http", "hdfs"]),
        )


def _inject_cloud(source: dict[str, Any], kind: str, locations: list[str]) -> None:
    """Object stores: all locations ending in '/' become ``prefixes``, otherwise ``uris``; never mixed."""
    is_prefix = [loc.endswith("/") for loc in locations]
    if any(is_prefix) and not all(is_prefix):
        raise _fail(
            _SOURCE_PATH,
            "input locations mix prefixes (ending in '/') and object URIs",
            value=locations,
            valid="all prefixes (each ending in '/') or all object URIs",
        )
    key = "prefixes" if all(is_prefix) else "uris"
    schemes = CLOUD_SCHEMES[kind]
    valid = " or ".join(f"{scheme}://..." for scheme in schemes) + f" for a {kind} input source"
    problems = [
        SpecProblem(f"{_SOURCE_PATH}.{key}[{i}]", "has the wrong URI scheme", value=loc, valid=valid)
        for i, loc in enumerate(locations)
        if not any(loc.startswith(f"{scheme}://") for scheme in schemes)
    ]
    if problems:
        raise SpecValidationError(problems, RENDER_HINT)
    for other in ("uris", "prefixes", "objects"):
        source.pop(other, None)
    source[key] = locations
