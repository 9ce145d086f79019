"""Hook-level lineage: what the hooks' submit and SQL calls read and write, told to Airflow's hook lineage collector.

The same collector S3Hook and BigQueryHook report to (``get_hook_lineage_collector`` from common-compat, Airflow's
``HookLineageCollector``); a hook lineage reader (the OpenLineage provider registers one) turns it into lineage
of the task that used the hook. Without a reader Airflow hands out its no-op collector and nothing is kept.

The assets are named as the rest of the provider names them (``common/assets.py``): a Druid datasource is
``druid://<conn_id>/<datasource>``, the URI of the Asset our operators emit, so hook lineage and Asset events
name one datasource alike. An input source is named from the same pure mapping the OpenLineage facets use
(``druid_ingest.planning.spec_input_datasets``) written as a URI: ``file:///data/events/2026-11-01``,
``s3://bucket/key``; a reindexing ``druid`` input is the source datasource's Druid asset. Lineage never fails
a call: a collector that raises is logged and ignored, as common.sql does.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from druid_ingest.planning import DatasetRef, spec_input_datasets

from airflow_provider_druid_ingest.common.assets import asset_uri

if TYPE_CHECKING:
    from airflow.sdk import BaseHook

__all__ = ["input_uris", "report_sql", "report_submit", "sql_datasources"]

_log = logging.getLogger(__name__)
#: Druid SQL schemas that are not datasources (``druid`` is the datasources' own schema)
_NOT_DATASOURCES = frozenset({"sys", "information_schema", "lookup", "view", "ext"})


def input_uris(refs: Iterable[DatasetRef], conn_id: str) -> list[str]:
    """OpenLineage-style dataset refs as asset URIs; a ref without a URI form (bare ``hdfs`` path) is left out."""
    out: list[str] = []
    for ref in refs:
        if ref.namespace == "file":
            uri = f"file://{ref.name}"
        elif ref.namespace.startswith("druid://"):
            uri = asset_uri(conn_id, ref.name)
        elif "://" in ref.namespace:
            uri = f"{ref.namespace.rstrip('/')}/{ref.name.lstrip('/')}"
        else:
            continue
        if uri not in out:
            out.append(uri)
    return out


def sql_datasources(sql: str) -> list[str]:
    """The datasources a statement reads, by OpenLineage's SQL parser (``openlineage_sql``, installed with the
    ``[openlineage]`` extra); [] without it or when it cannot parse the statement."""
    try:
        from openlineage_sql import parse  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return []
    try:
        tables = parse([sql], dialect="generic").in_tables
    except Exception:  # a parser failure is no lineage, never a failed query
        return []
    names: list[str] = []
    for table in tables:
        schema = (table.schema or "druid").lower()
        if schema == "druid" and table.name and table.name not in names:
            names.append(table.name)
    return names


def _collector() -> Any:
    from airflow.providers.common.compat.lineage.hook import get_hook_lineage_collector

    return get_hook_lineage_collector()  # type: ignore[no-untyped-call,unused-ignore]


def report_submit(hook: BaseHook, conn_id: str, datasource: str, spec: dict[str, Any] | None,
                  cluster_url: str | None = None) -> None:
    """An ingestion into ``datasource``: output its Druid asset, input what ``spec``'s input source reads."""
    try:
        collector = _collector()
        for uri in input_uris(spec_input_datasets(spec, cluster_url) if spec else [], conn_id):
            collector.add_input_asset(context=hook, uri=uri)
        collector.add_output_asset(context=hook, uri=asset_uri(conn_id, datasource))
    except Exception as exc:
        _log.warning("Druid hook lineage of the submit into %s was not reported: %s: %s", datasource,
                     type(exc).__name__, exc)


def report_sql(hook: BaseHook, conn_id: str, sql: str, *, parameters: Any = None, query_id: str | None = None,
               row_count: int | None = None, job_extra: bool = False) -> None:
    """A query: input the Druid assets of the datasources it reads. ``job_extra``: also common.sql's
    ``sql_job`` extra (statement, parameters, Druid's query id, row count); ``DbApiHook.run`` sends that itself."""
    try:
        collector = _collector()
        for datasource in sql_datasources(sql):
            collector.add_input_asset(context=hook, uri=asset_uri(conn_id, datasource))
        if job_extra:
            from airflow.providers.common.sql.hooks.lineage import send_sql_hook_lineage

            send_sql_hook_lineage(context=hook, sql=sql, sql_parameters=parameters, job_id=query_id,
                                  row_count=row_count)
    except Exception as exc:
        _log.warning("Druid hook lineage of a SQL query was not reported: %s: %s", type(exc).__name__, exc)
