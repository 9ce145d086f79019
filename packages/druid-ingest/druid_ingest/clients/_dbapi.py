"""A DB-API 2 (PEP 249) connection and cursor over :class:`DruidClient`'s Druid SQL call.

Why not pydruid's ``pydruid.db``: it is a second HTTP stack (its own ``requests`` calls, no retry policy, no
trusted-host rule for credentials on redirects, its own TLS options), so a query would be retried, authenticated
and verified differently from every other call this package makes. Here each ``execute`` is one
``DruidClient.sql_table`` call, through the core's exchange: the same retries, timeouts, TLS and credential
rules, and the same error taxonomy (a refused query raises :class:`~druid_ingest.errors.DruidValidationError`
with Druid's own ``errorMessage``).

Druid SQL is read-only here (ingestion goes through tasks), so there are no transactions: ``commit`` does
nothing and ``rollback`` is not supported. Parameters are positional (``?``, paramstyle ``qmark``) and sent as
Druid SQL dynamic parameters (``[{"type": "VARCHAR", "value": "x"}]``). Values are Druid's JSON values, not
converted (a ``TIMESTAMP`` column is the ISO text Druid sends); ``description`` carries the SQL type names.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from druid_ingest.api import SqlResult
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.errors import DruidError, DruidUsageError
from druid_ingest.wire import ClusterConfig, RetryPolicy

__all__ = [
    "DbApiConnection",
    "DbApiCursor",
    "DbApiError",
    "apilevel",
    "connect",
    "druid_parameters",
    "paramstyle",
    "threadsafety",
]

apilevel = "2.0"
#: threads may share the module, not connections (a connection holds one requests session)
threadsafety = 1
paramstyle = "qmark"

#: PEP 249's ``Error``: everything a cursor raises about Druid is a :class:`DruidError`
DbApiError = DruidError
_SCALARS = "bool, int, float, Decimal, str, None, datetime, date, a list of those, or {'type': ..., 'value': ...}"


def _parameter(position: int, value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        if set(value) != {"type", "value"}:
            raise DruidUsageError(f"SQL parameter {position}={value!r}: a typed parameter needs exactly the keys "
                                  "'type' and 'value' (e.g. {'type': 'TIMESTAMP', 'value': '2026-11-01 00:00:00'})")
        return dict(value)
    if value is None:
        return {"type": "VARCHAR", "value": None}
    if isinstance(value, bool):
        return {"type": "BOOLEAN", "value": value}
    if isinstance(value, int):
        return {"type": "BIGINT", "value": value}
    if isinstance(value, float | Decimal):
        return {"type": "DOUBLE", "value": float(value)}
    if isinstance(value, str):
        return {"type": "VARCHAR", "value": value}
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return {"type": "TIMESTAMP", "value": value.isoformat(sep=" ", timespec="milliseconds")}
    if isinstance(value, dt.date):
        return {"type": "DATE", "value": value.isoformat()}
    if isinstance(value, list | tuple):
        return {"type": "ARRAY", "value": [_parameter(position, v)["value"] for v in value]}
    raise DruidUsageError(f"SQL parameter {position}={value!r}: Druid SQL cannot bind a {type(value).__name__}; "
                          f"valid: {_SCALARS}")


def druid_parameters(parameters: Sequence[Any] | Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Python values (one per ``?``, in order) as Druid SQL dynamic parameters; a mapping is refused, since
    Druid binds parameters by position only."""
    if parameters is None:
        return []
    if isinstance(parameters, Mapping):
        raise DruidUsageError(f"SQL parameters={dict(parameters)!r}: Druid SQL binds parameters by position (?) "
                              "only; pass a list or tuple")
    if isinstance(parameters, str | bytes):
        raise DruidUsageError(f"SQL parameters={parameters!r}: expected a list or tuple of values, one per ?")
    return [_parameter(i, v) for i, v in enumerate(parameters, 1)]


class DbApiCursor:
    """PEP 249 cursor: ``execute`` runs one statement; the whole answer is held (Druid sends it at once)."""

    arraysize = 1

    def __init__(self, connection: DbApiConnection) -> None:
        self.connection = connection
        self._result: SqlResult | None = None
        self._next = 0
        self._closed = False

    @property
    def description(self) -> tuple[tuple[str, str | None, None, None, None, None, None], ...] | None:
        """One 7-item sequence per column: name, SQL type (``BIGINT``, ``VARCHAR``, ``TIMESTAMP``...), then None."""
        if self._result is None:
            return None
        return tuple((name, sql_type, None, None, None, None, None)
                     for name, sql_type in zip(self._result.columns, self._result.sql_types, strict=True))

    @property
    def druid_types(self) -> tuple[str | None, ...] | None:
        """Druid's runtime types of the columns (``LONG``, ``DOUBLE``, ``STRING``, ``COMPLEX<...>``...)."""
        return None if self._result is None else self._result.druid_types

    @property
    def rowcount(self) -> int:
        return -1 if self._result is None else len(self._result.rows)

    @property
    def query_id(self) -> str | None:
        """Druid's id of the last query (``X-Druid-SQL-Query-Id``): common.sql's hook lineage reads it."""
        return None if self._result is None else self._result.query_id

    def execute(self, operation: str, parameters: Sequence[Any] | Mapping[str, Any] | None = None) -> DbApiCursor:
        self._check_open()
        self._result = None
        self._result = self.connection._query(operation, druid_parameters(parameters))
        self._next = 0
        return self

    def executemany(self, operation: str, seq_of_parameters: Sequence[Sequence[Any]]) -> None:
        for parameters in seq_of_parameters:
            self.execute(operation, parameters)

    def fetchone(self) -> tuple[Any, ...] | None:
        rows = self._rows()
        if self._next >= len(rows):
            return None
        self._next += 1
        return rows[self._next - 1]

    def fetchmany(self, size: int | None = None) -> list[tuple[Any, ...]]:
        rows = self._rows()
        count = self.arraysize if size is None else size
        out = list(rows[self._next:self._next + count])
        self._next += len(out)
        return out

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows = self._rows()
        out = list(rows[self._next:])
        self._next = len(rows)
        return out

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchone, None)

    def setinputsizes(self, sizes: Any) -> None:
        """Nothing to set: Druid types parameters by their ``type``."""

    def setoutputsize(self, size: Any, column: Any = None) -> None:
        """Nothing to set: the whole answer arrives at once."""

    def close(self) -> None:
        self._closed = True
        self._result = None

    def __enter__(self) -> DbApiCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rows(self) -> tuple[tuple[Any, ...], ...]:
        self._check_open()
        if self._result is None:
            raise DruidUsageError("fetch before execute: call cursor.execute(sql) first")
        return self._result.rows

    def _check_open(self) -> None:
        if self._closed or self.connection.closed:
            raise DruidUsageError("this Druid SQL cursor (or its connection) is closed")


class DbApiConnection:
    """PEP 249 connection: one :class:`DruidClient`; ``context`` is sent with every query (``sqlQueryId``,
    ``timeout``, ``priority``, ``sqlTimeZone``, ... as Druid's SQL query context reads them)."""

    def __init__(self, client: DruidClient, context: Mapping[str, Any] | None = None) -> None:
        self.client = client
        self.context = dict(context or {})
        self.closed = False

    def cursor(self) -> DbApiCursor:
        if self.closed:
            raise DruidUsageError("this Druid SQL connection is closed")
        return DbApiCursor(self)

    def commit(self) -> None:
        """Nothing to commit: Druid SQL queries do not write."""

    def rollback(self) -> None:
        raise DruidUsageError("Druid SQL has no transactions: nothing to roll back")

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.client.close()

    def __enter__(self) -> DbApiConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, parameters: list[dict[str, Any]]) -> SqlResult:
        return self.client.sql_table(sql, parameters or None, self.context or None)


def connect(
    config: ClusterConfig, retry: RetryPolicy | None = None, context: Mapping[str, Any] | None = None
) -> DbApiConnection:
    """A DB-API connection to the cluster's Broker (``broker_url``, else the Router) through the core client."""
    return DbApiConnection(DruidClient(config, retry), context)
