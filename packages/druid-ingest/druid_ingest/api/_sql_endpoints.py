"""Druid SQL as a table: ``POST /druid/v2/sql`` with column names and types, and its answer parsed.

``sql`` (in ``_endpoints``) returns rows as dicts, which lose the column order of an empty result and every
type. A DB-API cursor needs both (``cursor.description``), so this pair asks Druid for the ``array`` result
format with the three header rows Druid's ``SqlResource`` writes before the data when asked
(``header``: names, ``typesHeader``: Druid's runtime types such as ``LONG``/``STRING``, ``sqlTypesHeader``: the
SQL types such as ``BIGINT``/``TIMESTAMP``), and the query ``context`` (e.g. ``sqlQueryId``, ``timeout``,
``priority``) in the body, as Druid's ``SqlQuery`` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from druid_ingest.errors import DruidProtocolError
from druid_ingest.wire import Request, Response, raise_for_status

__all__ = ["SQL_PATH", "SqlResult", "parse_sql_result", "sql_query"]

SQL_PATH = "/druid/v2/sql"
#: the answer header naming the query (the ``sqlQueryId`` of the context, or one Druid made up)
QUERY_ID_HEADER = "X-Druid-SQL-Query-Id"


@dataclass(frozen=True)
class SqlResult:
    """One Druid SQL answer: column names, Druid and SQL types per column, the rows (lists), the query id."""

    columns: tuple[str, ...]
    druid_types: tuple[str | None, ...]
    sql_types: tuple[str | None, ...]
    rows: tuple[tuple[Any, ...], ...]
    query_id: str | None = None


def sql_query(
    query: str, parameters: Sequence[Mapping[str, Any]] | None = None, context: Mapping[str, Any] | None = None
) -> Request:
    """``query`` with dynamic ``parameters`` (``[{"type": "VARCHAR", "value": "x"}, ...]``, one per ``?``) and
    the query ``context``; the answer carries the three header rows that :func:`parse_sql_result` reads."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"Druid SQL query={query!r}: expected a non-empty SQL statement")
    body: dict[str, Any] = {"query": query, "resultFormat": "array", "header": True, "typesHeader": True,
                            "sqlTypesHeader": True}
    if parameters:
        body["parameters"] = [dict(p) for p in parameters]
    if context:
        body["context"] = dict(context)
    return Request("POST", "broker", SQL_PATH, json_body=body)


def _names(row: Any, what: str, width: int | None, resp: Response) -> tuple[Any, ...]:
    if not isinstance(row, list) or (width is not None and len(row) != width):
        raise DruidProtocolError(f"Druid SQL answer: the {what} header row is missing or malformed "
                                 f"({str(row)[:200]!r})", url=resp.url)
    return tuple(row)


def parse_sql_result(resp: Response, req: Request) -> SqlResult:
    """The ``array`` answer with its header rows; a refused query raises through the error taxonomy with
    Druid's own ``errorMessage`` (e.g. ``Column 'x' not found in any table (line [1], column [8])``)."""
    raise_for_status(resp, req)
    data = resp.json()
    if not isinstance(data, list) or len(data) < 3:
        raise DruidProtocolError(f"Druid SQL answered without its header rows: {resp.text[:200]!r}", url=resp.url)
    columns = _names(data[0], "column-name", None, resp)
    druid_types = _names(data[1], "Druid-type", len(columns), resp)
    sql_types = _names(data[2], "SQL-type", len(columns), resp)
    rows = tuple(_names(row, "data", len(columns), resp) for row in data[3:])
    return SqlResult(
        columns=tuple(str(c) for c in columns),
        druid_types=tuple(None if t is None else str(t) for t in druid_types),
        sql_types=tuple(None if t is None else str(t) for t in sql_types),
        rows=rows,
        query_id=resp.header(QUERY_ID_HEADER),
    )
