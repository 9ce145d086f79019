"""``DruidSqlHook``: the ``druid_cluster`` connection's hook, so common.sql's operators run against Druid SQL.

common.sql's operators (``SQLExecuteQueryOperator``, ``SQLCheckOperator``, ``SQLValueCheckOperator``,
``SQLColumnCheckOperator``, ``SQLTableCheckOperator``, ...) build their hook with ``conn.get_hook()``, i.e. the one
class registered for the connection type, and refuse it unless it is a ``DbApiHook``. ``DruidHook`` stays a plain
``BaseHook`` (every operator, sensor and trigger imports it, and common.sql's hook module resolves the providers'
dialects when imported: a cost DAG parsing and the triggerer should not pay), and its ``get_conn`` keeps returning
the core client. The registered class is this subclass of both: everything ``DruidHook`` does (clients, config,
the Test button), plus ``DbApiHook``'s ``run``/``get_records``/``get_first``/``get_df`` over a DB-API connection
(``druid_ingest.clients.connect``) that sends each statement through the core's Druid SQL call.

Query context: the connection's ``context`` extra (a JSON object), overridden key by key by the hook's
``context`` argument (``hook_params={"context": {...}}`` on a common.sql operator).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from airflow.providers.common.compat.sdk import AirflowOptionalProviderFeatureException
from airflow.providers.common.sql.hooks.sql import DbApiHook

from airflow_provider_druid_ingest.hooks.druid import DruidHook

if TYPE_CHECKING:
    from druid_ingest.clients import DbApiConnection
    from druid_ingest.wire import RetryPolicy

__all__ = ["DruidSqlHook"]


def _context(value: Any, where: str) -> dict[str, Any]:
    if value is None or value == "":
        return {}
    parsed = value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
    if not isinstance(parsed, Mapping):
        raise ValueError(f"Druid SQL {where}={value!r}: expected a JSON object of query context keys, e.g. "
                         '{"timeout": 60000, "priority": 10}')
    return dict(parsed)


class DruidSqlHook(DruidHook, DbApiHook):
    """:class:`DruidHook` plus common.sql's ``DbApiHook`` over Druid SQL (connection type ``druid_cluster``).

    :param druid_conn_id: the connection id (default ``druid_cluster_default``)
    :param retry: optional core ``RetryPolicy`` for every call
    :param context: Druid SQL query context for every statement (over the connection's ``context`` extra)
    """

    conn_name_attr = "druid_conn_id"
    default_conn_name = DruidHook.default_conn_name
    conn_type = DruidHook.conn_type
    hook_name = DruidHook.hook_name
    supports_autocommit = False
    supports_executemany = False
    _placeholder = "?"
    _test_connection_sql = "SELECT 1"

    def __init__(self, druid_conn_id: str = DruidHook.default_conn_name, retry: RetryPolicy | None = None,
                 context: Mapping[str, Any] | str | None = None, **kwargs: Any) -> None:
        super().__init__(druid_conn_id=druid_conn_id, retry=retry, **kwargs)
        self.context = _context(context, "context")

    def query_context(self) -> dict[str, Any]:
        """The context sent with each statement: the connection's ``context`` extra, then the hook's."""
        extra = self.get_connection(self.druid_conn_id).extra_dejson
        return {**_context(extra.get("context"), "connection extra 'context'"), **self.context}

    def get_conn(self) -> DbApiConnection:  # type: ignore[override]
        """A DB-API connection (close it), not the core client: ``get_client()`` is that."""
        from druid_ingest.clients import connect

        return connect(self.get_config(), self.retry, self.query_context())

    def get_uri(self) -> str:
        """``druid://host:port/druid/v2/sql`` of the SQL entry point, without credentials."""
        from urllib.parse import urlsplit

        parts = urlsplit(self.get_config().base_url("broker"))
        return f"druid://{parts.netloc.rsplit('@', 1)[-1]}/druid/v2/sql"

    def _run_command(self, cur: Any, sql_statement: str, parameters: Any) -> None:
        super()._run_command(cur, sql_statement, parameters)
        from airflow_provider_druid_ingest.common.hook_lineage import report_sql

        report_sql(self, self.druid_conn_id, sql_statement)

    def _frame(self, sql: str | list[str], parameters: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
        if not isinstance(sql, str):
            raise ValueError(f"Druid get_df sql={sql!r}: expected one SQL statement (a str)")
        with self.get_conn() as conn, conn.cursor() as cur:
            cur.execute(sql, parameters)
            names = [d[0] for d in cur.description or ()]
            rows = cur.fetchall()
        from airflow_provider_druid_ingest.common.hook_lineage import report_sql

        report_sql(self, self.druid_conn_id, sql)
        return names, rows

    def _get_pandas_df(self, sql: Any, parameters: Any = None, **kwargs: Any) -> Any:
        """A pandas DataFrame built from the cursor (pandas' ``read_sql`` wants SQLAlchemy for non-sqlite)."""
        pd = _frame_library("pandas", "polars")
        names, rows = self._frame(sql, parameters)
        return pd.DataFrame.from_records(rows, columns=names, **kwargs)

    def _get_polars_df(self, sql: Any, parameters: Any = None, **kwargs: Any) -> Any:
        """A polars DataFrame built from the cursor."""
        pl = _frame_library("polars", "pandas")
        names, rows = self._frame(sql, parameters)
        return pl.DataFrame(rows, schema=names, orient="row", **kwargs)

    def insert_rows(self, table: Any, rows: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("Druid SQL cannot insert rows: ingest with DruidIngestOperator or "
                                  "DruidMsqIngestOperator (REPLACE/INSERT ... SELECT)")

    def test_connection(self) -> tuple[bool, str]:  # type: ignore[override]
        """:meth:`DruidHook.test_connection`, then ``SELECT 1`` on the SQL entry point (a note when it fails:
        a connection used only for ingestion needs no Broker)."""
        ok, message = DruidHook.test_connection(self)
        if not ok:
            return ok, message
        from druid_ingest.errors import DruidError

        try:
            self.get_first(self._test_connection_sql)
        except DruidError as exc:
            return ok, f"{message}; note: Druid SQL (SELECT 1) failed: {exc}"
        return ok, f"{message}; Druid SQL answers"


def _frame_library(name: str, other: str) -> Any:
    """The DataFrame library ``get_df(df_type=name)`` needs, or the error saying what to install (before any query)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise AirflowOptionalProviderFeatureException(
            f"get_df(df_type={name!r}) needs {name}, which is not installed: pip install {name} "
            f"(or df_type={other!r} with {other} installed)") from None
