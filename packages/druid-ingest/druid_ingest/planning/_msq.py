"""SQL-based (MSQ) ingestion: one templated ``REPLACE``/``INSERT`` statement per interval, planned like a spec.

``build_msq_plan`` renders the statement with the run's interval (Jinja variables ``interval_start``,
``interval_end`` as SQL ``TIMESTAMP`` literal text, ``interval`` as Druid's ISO ``start/end``, ``interval_date`` as
``YYYY-MM-DD`` of its start, ``datasource``), checks it
before any HTTP call and derives the deterministic task id. MSQ names its controller task ``query-<sqlQueryId>``
(``MSQTasks.controllerTaskId``) and takes ``sqlQueryId`` from the query context, so pinning ``sqlQueryId`` pins the
task id: the same ensure/adopt logic as native specs applies (druid-contract §msq).

Pre-flight refuses a ``REPLACE`` that is not bounded to the run's interval: ``OVERWRITE WHERE __time >= TIMESTAMP
'<start>' AND __time < TIMESTAMP '<end>'`` must name exactly that interval; ``OVERWRITE ALL`` only with
``allow_overwrite_all=True``; the window must start and end on ``PARTITIONED BY`` buckets (Druid refuses it
otherwise: ``msq_partitions``). ``INSERT`` appends and is allowed with a warning.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from druid_ingest.errors import SpecProblem, SpecValidationError
from druid_ingest.planning._ids import base_task_id, canonical_interval, canonical_json, invalid_task_id_reason
from druid_ingest.planning._msq_partitions import partitioned_by_problem
from druid_ingest.planning._work import WorkKind
from druid_ingest.planning.spec.alignment import AIRFLOW_TERMS, ScheduleTerms
from druid_ingest.planning.spec.render import render_sql
from druid_ingest.wire import Request

__all__ = [
    "MSQ_TASK_PREFIX",
    "MSQ_TASK_TYPE",
    "SQL_TASK_PATH",
    "MsqPlan",
    "build_msq_plan",
    "check_statement",
    "interval_variables",
]

MSQ_TASK_PREFIX = "query-"
MSQ_TASK_TYPE = "query_controller"
SQL_TASK_PATH = "/druid/v2/sql/task"
MsqMode = Literal["REPLACE", "INSERT"]
#: context keys the plan owns: the id, and MSQ's own handoff wait (the package's gate does that job)
_OWNED_CONTEXT = ("sqlQueryId",)


@dataclass(frozen=True)
class MsqPlan:
    """A checked, rendered MSQ statement and what it implies. Build it with :func:`build_msq_plan`."""

    sql: str
    context_json: str
    datasource: str
    intervals: tuple[str, ...]
    mode: MsqMode
    peak_slots: int
    base_task_id: str
    warnings: tuple[str, ...] = ()

    @property
    def context(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.context_json)
        return value

    @property
    def kind(self) -> WorkKind:
        return "msq"

    @property
    def append(self) -> bool:
        """INSERT adds segments beside the chunk's existing ones: the handoff gate's append mode."""
        return self.mode == "INSERT"

    @property
    def probes_input(self) -> bool:
        """No probe: the statement reads its input inside the query (an empty one replaces nothing)."""
        return False

    @property
    def publishes(self) -> bool:
        return True

    @property
    def runs_task(self) -> bool:
        return True

    @property
    def task_spec(self) -> None:
        return None

    def submit_request(self, task_id: str) -> Request:
        """druid-contract §msq: ``POST /druid/v2/sql/task`` on the Broker (through the Router)."""
        return Request("POST", "broker", SQL_TASK_PATH, json_body=self.query_body(task_id), task_id=task_id)

    def query_body(self, task_id: str) -> dict[str, Any]:
        """The ``/druid/v2/sql/task`` body that makes MSQ name its controller task ``task_id``."""
        if not task_id.startswith(MSQ_TASK_PREFIX):
            raise ValueError(f"MSQ task id {task_id!r} must start with {MSQ_TASK_PREFIX!r}")
        return {"query": self.sql, "context": {**self.context, "sqlQueryId": task_id[len(MSQ_TASK_PREFIX):]}}

    def describe(self) -> str:
        return (
            f"MSQ {self.mode} into {self.datasource!r} for {', '.join(self.intervals)}; "
            f"{self.peak_slots} Druid task slot(s) at peak; base task id {self.base_task_id}"
        )


def _sql_time(value: datetime) -> str:
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    return text + (f".{value.microsecond // 1000:03d}" if value.microsecond else "")


def _parse_instant(text: str, path: str) -> datetime:
    raw = text.strip()
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        raise SpecValidationError([SpecProblem(path, "not a timestamp", value=text,
                                               valid="ISO 8601, e.g. 2026-11-01T00:00:00Z")]) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def _split_interval(interval: str) -> tuple[datetime, datetime]:
    parts = interval.split("/")
    if len(parts) != 2:
        raise SpecValidationError([SpecProblem("intervals", "not an ISO interval start/end", value=interval,
                                               valid="e.g. 2026-11-01T00:00:00Z/2026-11-02T00:00:00Z")])
    return _parse_instant(parts[0], "intervals"), _parse_instant(parts[1], "intervals")


def interval_variables(interval: str) -> dict[str, str]:
    """The template variables of one run interval (UTC; ``interval`` in Druid's form, so a day spelled two ways
    renders, and hashes, one statement)."""
    start, end = _split_interval(interval)
    return {"interval_start": _sql_time(start), "interval_end": _sql_time(end),
            "interval": canonical_interval(interval), "interval_date": start.strftime("%Y-%m-%d")}


# ---- statement checks (pure text) -------------------------------------------------------------------

_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_HEAD = re.compile(
    r"^\s*(?P<verb>REPLACE|INSERT)\s+INTO\s+(?P<table>\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_]*)", re.I
)
_OVERWRITE = re.compile(r"\bOVERWRITE\s+(?P<what>ALL\b|WHERE\b)", re.I)
_WHERE_END = re.compile(r"\b(SELECT|WITH)\b|\(", re.I)
_BOUND = re.compile(
    r"^\s*\"?__time\"?\s*(?P<op>>=|<)\s*TIMESTAMP\s*'(?P<ts>[^']+)'\s*$", re.I
)
_PARTITIONED = re.compile(r"\bPARTITIONED\s+BY\b", re.I)


def _strip_comments(sql: str) -> str:
    """Comments blanked out (string literals kept: the OVERWRITE bounds are literals)."""
    return _COMMENTS.sub(" ", sql)


def _table(raw: str) -> str:
    return raw[1:-1].replace('""', '"') if raw.startswith('"') else raw


def _overwrite_problems(text: str, start: datetime, end: datetime, interval: str, allow_all: bool) -> list[str]:
    clause = _OVERWRITE.search(text)
    valid = f"OVERWRITE WHERE __time >= TIMESTAMP '{_sql_time(start)}' AND __time < TIMESTAMP '{_sql_time(end)}'"
    if clause is None:
        return [f"REPLACE has no OVERWRITE clause; for the run's interval {interval} write: {valid}"]
    if clause.group("what").upper() == "ALL":
        if allow_all:
            return []
        return [f"OVERWRITE ALL replaces every interval of the datasource, not only the run's interval {interval}; "
                f"write {valid} (or pass allow_overwrite_all=True to mean it)"]
    rest = text[clause.end():]
    stop = _WHERE_END.search(rest)
    condition = rest[: stop.start()] if stop else rest
    terms = re.split(r"\bAND\b", condition, flags=re.I)
    bounds: dict[str, datetime] = {}
    for term in terms:
        match = _BOUND.match(term)
        if match is None or match.group("op") in bounds:
            return [f"OVERWRITE WHERE {' '.join(condition.split())!r} is not bounded to the run's interval "
                    f"{interval}; write exactly: {valid}"]
        try:
            bounds[match.group("op")] = _parse_instant(match.group("ts"), "OVERWRITE WHERE")
        except SpecValidationError:
            return [f"OVERWRITE WHERE has an unreadable TIMESTAMP {match.group('ts')!r}; write: {valid}"]
    if set(bounds) != {">=", "<"} or bounds[">="] != start or bounds["<"] != end:
        return [f"OVERWRITE WHERE {' '.join(condition.split())!r} does not match the run's interval {interval}; "
                f"write: {valid}"]
    return []


def check_statement(
    sql: str, interval: str, *, datasource: str | None = None, allow_overwrite_all: bool = False,
    schedule_terms: ScheduleTerms = AIRFLOW_TERMS,
) -> tuple[str, MsqMode, list[str]]:
    """(datasource, mode, warnings) of a rendered statement; SpecValidationError naming the clause otherwise."""
    text = _strip_comments(sql)
    start, end = _split_interval(interval)
    head = _HEAD.match(text)
    if head is None:
        raise SpecValidationError([SpecProblem(
            "sql", "must start with REPLACE INTO <datasource> or INSERT INTO <datasource>",
            value=" ".join(sql.split())[:80],
            valid="REPLACE INTO ... OVERWRITE WHERE ... SELECT ... PARTITIONED BY ...",
        )])
    table = _table(head.group("table"))
    mode: MsqMode = "REPLACE" if head.group("verb").upper() == "REPLACE" else "INSERT"
    problems: list[SpecProblem] = []
    warnings: list[str] = []
    if datasource and datasource != table:
        problems.append(SpecProblem("sql", f"writes into {table!r} but the datasource is {datasource!r}",
                                    value=table, valid=f"INTO \"{datasource}\""))
    if reason := invalid_task_id_reason(table):
        problems.append(SpecProblem("sql", f"datasource name {reason}", value=table))
    if mode == "REPLACE":
        problems.extend(SpecProblem("sql.OVERWRITE", p) for p in
                        _overwrite_problems(text, start, end, interval, allow_overwrite_all))
        clause = _OVERWRITE.search(text)
        if clause is not None and clause.group("what").upper() == "WHERE":
            unaligned, note = partitioned_by_problem(text, start, end, schedule_terms)
            problems.extend([unaligned] if unaligned else [])
            warnings.extend([note] if note else [])
    else:
        warnings.append(f"INSERT appends to {table!r}: re-running the same statement adopts its task, but a changed "
                        f"statement adds the rows again; use REPLACE ... OVERWRITE WHERE for the interval {interval}")
    if not _PARTITIONED.search(text):
        problems.append(SpecProblem("sql", "has no PARTITIONED BY clause (Druid requires one for INSERT/REPLACE)",
                                    valid="e.g. PARTITIONED BY DAY"))
    if problems:
        raise SpecValidationError(problems)
    return table, mode, warnings


def build_msq_plan(
    sql: str,
    *,
    intervals: list[str],
    datasource: str | None = None,
    context: dict[str, Any] | None = None,
    variables: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
    allow_overwrite_all: bool = False,
    allow_empty: bool = False,
    id_prefix: str = "msq",
    schedule_terms: ScheduleTerms = AIRFLOW_TERMS,
) -> MsqPlan:
    """Render ``sql`` for the run's interval, check it (no HTTP) and derive the plan.

    One interval per statement: a day's run REPLACEs that day. The id hashes the rendered statement and context,
    so the same statement adopts its task and a changed one gets a new task (which replaces the interval). The
    id and ``{{ interval }}`` take the interval in Druid's own form (``canonical_interval``), so spellings of the
    same instants plan one task.

    ``failOnEmptyInsert`` defaults to ``not allow_empty``: Druid's default (false) lets a REPLACE whose input is
    missing or empty SUCCEED and replace the interval with tombstones, deleting the day (seen on Druid 33).
    ``schedule_terms``: the face's words for its schedule in an unaligned-window refusal. A refusal says
    "invalid MSQ statement".
    """
    try:
        return _msq_plan(sql, intervals, datasource, context, variables, idempotency_key, allow_overwrite_all,
                         allow_empty, id_prefix, schedule_terms)
    except SpecValidationError as exc:
        raise SpecValidationError(exc.problems, exc.hint, subject="MSQ statement") from None


def _msq_plan(sql: str, intervals: list[str], datasource: str | None, context: dict[str, Any] | None,
              variables: dict[str, Any] | None, idempotency_key: str | None, allow_overwrite_all: bool,
              allow_empty: bool, id_prefix: str, schedule_terms: ScheduleTerms) -> MsqPlan:
    if len(intervals) != 1:
        raise SpecValidationError([SpecProblem("intervals", "an MSQ statement is planned for exactly one interval",
                                               value=intervals, valid="one ISO interval, e.g. the run's")])
    interval = intervals[0]
    values = {**(variables or {}), **interval_variables(interval)}
    if datasource:
        values["datasource"] = datasource
    rendered = render_sql(sql, values)
    table, mode, warnings = check_statement(rendered, interval, datasource=datasource,
                                            allow_overwrite_all=allow_overwrite_all, schedule_terms=schedule_terms)
    ctx = dict(context or {})
    for key in _OWNED_CONTEXT:
        if key in ctx:
            raise SpecValidationError([SpecProblem(f"context.{key}", "is set by the plan (it pins the task id)",
                                                   value=ctx[key], valid="leave it out; use idempotency_key")])
    ctx.setdefault("failOnEmptyInsert", not allow_empty)
    tasks = ctx.get("maxNumTasks", 2)
    if isinstance(tasks, bool) or not isinstance(tasks, int) or tasks < 2:
        raise SpecValidationError([SpecProblem("context.maxNumTasks", "must be an integer >= 2 (controller + one "
                                               "worker)", value=tasks)])
    base = MSQ_TASK_PREFIX + base_task_id({"query": rendered, "context": ctx}, table, [interval],
                                          idempotency_key or None, id_prefix)
    return MsqPlan(rendered, canonical_json(ctx), table, (interval,), mode, tasks, base, tuple(warnings))
