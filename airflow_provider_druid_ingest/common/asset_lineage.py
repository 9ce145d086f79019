"""The ``druid`` Asset scheme's factory and OpenLineage converter (``asset-uris`` in get_provider_info).

The factory lets a hook lineage call name a Druid asset by its parts, as S3Hook does for ``s3``
(``collector.add_output_asset(context=hook, scheme="druid", asset_kwargs={"conn_id": ..., "datasource": ...})``).
The converter is what the OpenLineage provider calls to turn a collected ``druid://<conn_id>/<datasource>`` into an
OpenLineage dataset; it names it as the operators' own facets do (docs/openlineage.md): namespace
``druid://{host}:{port}`` of the connection's SQL entry point, name the datasource. Without it the OpenLineage
provider drops Druid assets from hook lineage (no converter for the scheme).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from druid_ingest.planning import druid_dataset

from airflow_provider_druid_ingest.common.assets import asset_uri

if TYPE_CHECKING:
    from airflow.sdk import Asset

__all__ = ["convert_asset_to_openlineage", "create_asset"]


def create_asset(*, conn_id: str, datasource: str, extra: dict[str, Any] | None = None) -> Asset:
    """``Asset("druid://<conn_id>/<datasource>")`` (Airflow's asset factory signature: keyword parts, ``extra``)."""
    from airflow.sdk import Asset

    return Asset(uri=asset_uri(conn_id, datasource), extra=extra or {})


def _cluster_url(conn_id: str, lineage_context: Any) -> str:
    from airflow_provider_druid_ingest.hooks.druid import DruidHook, config_from_connection

    if isinstance(lineage_context, DruidHook) and lineage_context.druid_conn_id == conn_id:
        return lineage_context.get_config().base_url("broker")
    from airflow.sdk import BaseHook

    conn = BaseHook.get_connection(conn_id)
    return config_from_connection(conn, conn.extra_dejson).base_url("broker")


def convert_asset_to_openlineage(asset: Asset, lineage_context: Any) -> Any:
    """The OpenLineage dataset of a Druid asset; the cluster is read from the hook that reported it, else the
    connection the URI names."""
    from airflow.providers.common.compat.openlineage.facet import Dataset

    parts = urlsplit(asset.uri)
    ref = druid_dataset(_cluster_url(parts.netloc, lineage_context), parts.path.lstrip("/"))
    return Dataset(namespace=ref.namespace, name=ref.name)
