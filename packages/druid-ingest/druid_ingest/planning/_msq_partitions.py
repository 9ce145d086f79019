"""MSQ pre-flight: the ``OVERWRITE WHERE`` window of a ``REPLACE`` must be on ``PARTITIONED BY`` buckets.

Druid refuses such a statement itself, at planning (``DruidSqlParserUtils.validateQueryAndConvertToIntervals``:
"OVERWRITE WHERE clause identified interval [...] which is not aligned with PARTITIONED BY granularity [...]"),
as a 400 after the HTTP round trip. Saying it here, in the same words plus the buckets, the hours and the fixes,
fails the run before any HTTP, with the rest of the plan's problems (druid-contract §alignment).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from druid_ingest.errors import SpecProblem
from druid_ingest.planning.spec.alignment import (
    AIRFLOW_TERMS,
    OPT_IN,
    ScheduleTerms,
    finest_aligning,
    fmt_window,
    lost_text,
)
from druid_ingest.planning.spec.buckets import ALL, Buckets, Unreadable, buckets_of

__all__ = ["partitioned_by", "partitioned_by_problem"]

_CLAUSE = re.compile(
    r"\bPARTITIONED\s+BY\s+(?:"
    r"(?P<all>ALL(?:\s+TIME)?)\b"
    r"|TIME_FLOOR\s*\(\s*\"?__time\"?\s*,\s*'(?P<period>P[^']+)'\s*\)"
    r"|FLOOR\s*\(\s*\"?__time\"?\s+TO\s+(?P<unit>[A-Z_]+)\s*\)"
    r"|'(?P<literal>[^']+)'"
    r"|(?P<name>[A-Z_]+)\b)",
    re.I,
)


def partitioned_by(text: str) -> Any:
    """The ``PARTITIONED BY`` granularity as a spec would write it (``"DAY"``, ``{"type": "period", ...}``,
    ``"ALL"``), or None when the clause is absent or a form this check does not read."""
    match = _CLAUSE.search(text)
    if match is None:
        return None
    if match.group("all"):
        return ALL
    if match.group("period"):
        return {"type": "period", "period": match.group("period").upper()}
    word = (match.group("unit") or match.group("literal") or match.group("name") or "").upper()
    return {"type": "period", "period": word} if word.startswith("P") else word


def _joda(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _druid_name(buckets: Buckets | str) -> str:
    """How Druid prints the granularity in its refusal (``PeriodGranularity.toString``)."""
    if not isinstance(buckets, Buckets):
        return "AllGranularity"
    fixed = buckets.unit in ("hours", "minutes", "seconds")
    period = f"P{'T' if fixed else ''}{buckets.count}{buckets.unit[0].upper()}"
    return f"{{type=period, period={period}, timeZone=UTC, origin=null}}"


def partitioned_by_problem(
    text: str, start: datetime, end: datetime, terms: ScheduleTerms = AIRFLOW_TERMS
) -> tuple[SpecProblem | None, str | None]:
    """(problem, warning) for a REPLACE over ``start/end``: a problem when Druid would refuse the window, a
    warning when the ``PARTITIONED BY`` form cannot be read (no false refusal). ``terms``: the face's words for
    its schedule."""
    granularity = partitioned_by(text)
    if granularity is None:
        return None, None
    buckets = buckets_of(granularity)
    if isinstance(buckets, Unreadable) or buckets == "NONE":
        reason = buckets.reason if isinstance(buckets, Unreadable) else "NONE"
        return None, (f"cannot check that the OVERWRITE WHERE window is aligned with PARTITIONED BY ({reason}); "
                      "Druid refuses a window that is not")
    if isinstance(buckets, Buckets) and buckets.aligned(start) and buckets.aligned(end):
        return None, None
    druid_words = (f"OVERWRITE WHERE clause identified interval [{_joda(start)}/{_joda(end)}] which is not aligned "
                   f"with PARTITIONED BY granularity [{_druid_name(buckets)}]")
    if isinstance(buckets, Buckets):
        first, last = buckets.floor(start), buckets.floor(end)
        last = end if last == end else buckets.next(last)
        lost = [span for span in ((first, start), (end, last)) if span[0] < span[1]]
        detail = f"; it covers part of the buckets {fmt_window(first, last)}, leaving out {lost_text(lost)}"
    else:
        detail = "; ALL TIME is one bucket of all time"
    finer = finest_aligning(start, end)
    return SpecProblem(
        "sql.PARTITIONED BY",
        f"Druid refuses this statement: {druid_words}{detail}",
        valid=(f"PARTITIONED BY a granularity the run's interval is made of, e.g. {finer or 'HOUR'}, or "
               f"{terms.utc_schedule} (there is no {OPT_IN} for MSQ: Druid itself refuses it)"),
    ), None
