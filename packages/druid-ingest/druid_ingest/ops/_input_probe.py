"""The pre-submit input probe of a ``dropExisting`` replace, as pure functions (the operation is
``operations.probe_input``).

Why: with dynamic or hashed partitioning Druid 33 answers an empty or missing input with tombstones over the whole
interval (dev/druid/RECORDED.md §6): the interval's old rows disappear and the task is SUCCESS. One sampler call
before the submit tells "the input has rows" from "the input is empty"; it reads at most ``PROBE_ROWS`` rows from
the start of the input, on the Overlord (druid-contract §sampler).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from druid_ingest.api import InputSample
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import (
    DruidAuthError,
    DruidEmptyInputError,
    DruidError,
    DruidFatalError,
    DruidInputProbeError,
    DruidInputProbeRefusedError,
    DruidRetriesExhaustedError,
)
from druid_ingest.planning import Plan
from druid_ingest.planning.spec.intervals import parse_interval
from druid_ingest.wire import Request

__all__ = [
    "LOOK_ROWS",
    "PROBE_READ_OK",
    "PROBE_READ_TIMEOUT",
    "PROBE_ROWS",
    "PROBE_TIMEOUT_MS",
    "describe_input",
    "describe_plan_input",
    "empty_input_error",
    "outside_error",
    "probe_line",
    "probe_refused",
    "probe_request",
    "wants_probe",
]

#: rows the sampler reads at most: one row of the interval is enough to know the input is not empty for it, and
#: more can hang the call: Druid 33's sampler stops at ``numRows`` rows, but its ``timeoutMs`` does not interrupt a
#: read that blocks, so an input that stalls after its first row (an http source still being written) kept a
#: ``numRows: 2`` call open 30 s where ``numRows: 1`` answered in 48 ms (recorded)
PROBE_ROWS = 1
#: rows of the second look, without the interval filter, that names what an input without the interval's rows holds
LOOK_ROWS = 5

#: how the line of a probe that found indexable rows starts (``probe_line``)
PROBE_READ_OK = "input probe: the sampler read"
#: the sampler's own budget for reading (``SamplerConfig.timeoutMs``)
PROBE_TIMEOUT_MS = 4_000
#: the client's cap on the call: the sampler can hang past its budget while it opens or reads the input (an
#: unreachable ``http`` URI was still unanswered after minutes on Druid 33; an input that stalls after its first
#: rows held it past 120 s), so the probe gives up (and refuses the replace: ``probe_refused``). Short, because it
#: is spent inside the Airflow task's ``execution_timeout`` before the task is even submitted (a 25 s cap ate a
#: 20 s one whole)
PROBE_READ_TIMEOUT = 8.0

#: the keys that say where an input source reads from, per Druid's input source types
_LOCATION_KEYS = ("baseDir", "filter", "files", "uris", "prefixes", "objects", "paths", "dataSource", "interval",
                  "database", "sqls")


def wants_probe(plan: Plan, allow_empty: bool) -> bool:
    """The plan says whether an empty input could erase an interval (``Plan.probes_input``: a native
    ``dropExisting`` replace; MSQ has ``failOnEmptyInsert``, an append adds nothing, a legacy replace leaves old
    segments); ``allow_empty`` turns the probe off."""
    return plan.probes_input and not allow_empty


def _io_parts(plan: Plan) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    body = (plan.task_spec or {}).get("spec") or {}
    io = body.get("ioConfig") or {}
    schema = body.get("dataSchema") or {}
    fmt = io.get("inputFormat")
    return schema, io.get("inputSource") or {}, fmt if isinstance(fmt, dict) else None


def _within(schema: dict[str, Any], intervals: tuple[str, ...]) -> dict[str, Any]:
    """``schema`` whose transformSpec also keeps only rows in ``intervals`` (an ``interval`` filter on ``__time``,
    and-ed with the spec's own filter): Druid's sampler then skips the other rows without counting them and reads
    on until it has rows of the intervals, the input ends or its budget is spent (seen on Druid 33)."""
    if not intervals:
        return schema
    keep: dict[str, Any] = {"type": "interval", "dimension": "__time", "intervals": list(intervals)}
    transform = dict(schema.get("transformSpec") or {})
    own = transform.get("filter")
    transform["filter"] = {"type": "and", "fields": [own, keep]} if isinstance(own, dict) else keep
    return {**schema, "transformSpec": transform}


def probe_request(plan: Plan, *, within: bool = True, rows: int = PROBE_ROWS) -> Request | None:
    """The sampler call for ``plan``'s input (its dataSchema, inputSource, inputFormat in the ``index`` shape), by
    default for the rows of the plan's intervals only; None when the spec has no ``inputSource`` to sample."""
    schema, source, fmt = _io_parts(plan)
    if not source.get("type"):
        return None
    if within:
        schema = _within(schema, plan.intervals)
    return ep.sampler(schema, source, fmt, rows, PROBE_TIMEOUT_MS, read_timeout=PROBE_READ_TIMEOUT)


def _short(value: Any, limit: int = 3) -> str:
    if isinstance(value, list):
        shown = ", ".join(_short(v) for v in value[:limit])
        return f"[{shown}{f', ... ({len(value)} in all)' if len(value) > limit else ''}]"
    if isinstance(value, dict):  # an s3/gs/azure object: {bucket, path}
        return "/".join(str(v) for v in value.values())
    return str(value)


def describe_input(source: dict[str, Any]) -> str:
    """``local input source baseDir=/data/2026-11-01 filter=*.json``: the type and where it reads, no secrets
    (credentials keys such as ``properties`` or ``httpAuthenticationPassword`` are never named)."""
    kind = str(source.get("type") or "?")
    if kind == "combining":
        parts = [describe_input(d) for d in source.get("delegates") or [] if isinstance(d, dict)]
        return f"combining input source of ({'; '.join(parts)})"
    if kind == "inline":
        return f"inline input source ({len(str(source.get('data') or ''))} characters of data)"
    where = [f"{key}={_short(source[key])}" for key in _LOCATION_KEYS if source.get(key) not in (None, "", [])]
    return f"{kind} input source " + (" ".join(where) if where else "(no location given)")


def describe_plan_input(plan: Plan) -> str:
    return describe_input(_io_parts(plan)[1])


def probe_line(sample: InputSample) -> str:
    """One line for the SubmitOutcome and the task log; a warning when rows were read but none parsed."""
    if sample.rows_read and not sample.rows_indexed:
        why = f": {sample.first_error}" if sample.first_error else ""
        return (f"input probe: warning: the sampler read {sample.rows_read} row(s), none of them indexed "
                f"({sample.unparseable} unparseable{why}); submitting anyway (it reads only the first rows)")
    return f"{PROBE_READ_OK} {sample.rows_read} row(s), {sample.rows_indexed} indexed"


#: an answer with no row that took this share of the sampler's budget ran out of time rather than of input
_BUDGET_SPENT = 0.9


def empty_input_error(plan: Plan, sample: InputSample | None = None) -> DruidEmptyInputError:
    """The refusal of a replace whose probe read no row. When the sampler spent its whole ``timeoutMs`` the input
    may be slow, not empty (its reader stops at the deadline and answers what it has): still refused, because
    submitting could erase the interval, but the message says so."""
    source = describe_plan_input(plan)
    intervals = ", ".join(plan.intervals) or "the intervals in the data"
    budget = PROBE_TIMEOUT_MS / 1000
    if sample is not None and sample.seconds >= budget * _BUDGET_SPENT:
        what = (f"Druid's sampler read no row within its {budget:g} s budget from the {source} (the call took "
                f"{sample.seconds:.1f} s): the input may be slow to deliver its first row rather than empty. ")
    else:
        what = f"the input of this dropExisting replace is empty: Druid's sampler read 0 rows from the {source}. "
    return DruidEmptyInputError(
        f"{what}Replacing {intervals} of {plan.datasource!r} with it would erase that data (Druid writes tombstones "
        "over an empty input), so nothing was submitted and the interval's data is untouched. Fix the input "
        "(path, filter, upstream job) and run again, or pass allow_empty=True if an empty interval is intended.",
        source=source,
        intervals=plan.intervals,
    )


_OPT_OUT = ("pass allow_empty=True to submit without the probe (an empty input would then erase the interval's "
            "data)")


def _utc(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _spans(plan: Plan) -> list[tuple[int, int]]:
    spans = []
    for text in plan.intervals:
        start, end = parse_interval(text)
        spans.append((int(start.timestamp() * 1000), int(end.timestamp() * 1000)))
    return spans


def outside_error(plan: Plan, sample: InputSample) -> DruidEmptyInputError | None:
    """The refusal of a replace whose sampled rows ALL lie outside its intervals (the folder holds another day's
    file: Druid would tombstone the interval and drop those rows), or None when one row is inside or the plan has
    no intervals. A sample with some rows inside submits: an unsorted or multi-day input is not empty."""
    spans = _spans(plan)
    if not spans or not sample.times or any(lo <= t < hi for t in sample.times for lo, hi in spans):
        return None
    source = describe_plan_input(plan)
    first, last = min(sample.times), max(sample.times)
    seen = _utc(first) if first == last else f"{_utc(first)} to {_utc(last)}"
    return DruidEmptyInputError(
        f"the input of this dropExisting replace holds no row of its interval: Druid's sampler read "
        f"{len(sample.times)} row(s) from the {source}, all with __time {seen}, outside "
        f"{', '.join(plan.intervals)}. Replacing that interval of {plan.datasource!r} with it would erase its data "
        "(Druid drops rows outside the intervals and writes tombstones), so nothing was submitted and the "
        "interval's data is untouched. Fix the input (path, filter, the run's date) and run again, or "
        "pass allow_empty=True if an empty interval is intended.",
        source=source,
        intervals=plan.intervals,
    )


def _reason(exc: DruidError) -> str:
    last = exc.last if isinstance(exc, DruidRetriesExhaustedError) else exc
    text = str(exc)
    text = text if len(text) <= 400 else text[:400] + "..."
    if isinstance(last, DruidAuthError) and last.status == 403:
        return (f"the credentials may not call the sampler ({text}): POST /druid/indexer/v1/sampler needs STATE "
                "WRITE, which a submit alone (datasource WRITE) does not; grant it, or ")
    if isinstance(last, DruidAuthError):
        return f"the credentials were rejected ({text}); fix them, or "
    return f"the sampler did not answer ({text}); "


def probe_refused(plan: Plan, exc: DruidError | None) -> DruidError:
    """The refusal of a replace whose input could not be probed (fails closed: an empty input would erase the
    interval). Retryable (DruidInputProbeError) when the cause may pass (5xx, timeouts), fatal otherwise; ``exc``
    None: the spec has no ``inputSource`` to sample."""
    where = f"{', '.join(plan.intervals) or 'the intervals in the data'} of {plan.datasource!r}"
    head = (f"the input of this dropExisting replace of {where} could not be probed, and nothing was submitted "
            "(an empty input would erase the interval's data): ")
    if exc is None:
        return DruidInputProbeRefusedError(f"{head}the spec has no ioConfig.inputSource to sample; {_OPT_OUT}")
    last = exc.last if isinstance(exc, DruidRetriesExhaustedError) else exc
    message = head + _reason(exc) + _OPT_OUT
    refusal: DruidError = (DruidInputProbeRefusedError(message) if isinstance(last, DruidFatalError)
                           else DruidInputProbeError(message))
    refusal.status = last.status  # after the message: it already quotes the status
    return refusal
