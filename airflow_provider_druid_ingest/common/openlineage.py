"""OpenLineage facets for the Druid classes (extra ``[openlineage]``: apache-airflow-providers-openlineage).

Imported only from the operators' ``get_openlineage_facets_on_*`` methods, which the OpenLineage listener calls;
the OpenLineage modules are imported inside :func:`operator_lineage`, so without the extra the provider imports
and runs, and these methods return None (nothing to report to a listener that is not there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from druid_ingest.planning import DatasetRef, druid_dataset, druid_namespace, spec_input_datasets

__all__ = ["lineage_for", "operator_lineage"]

#: ExternalQueryRunFacet.source and SQLJobFacet.dialect
SOURCE = "druid"


def operator_lineage(
    *,
    outputs: Sequence[DatasetRef],
    inputs: Sequence[DatasetRef] = (),
    druid_task_id: str | None = None,
    cluster_url: str | None = None,
    sql: str | None = None,
) -> Any:
    """An ``OperatorLineage`` (inputs, outputs, the Druid task as ``externalQuery``, the statement as ``sql``),
    or None when the OpenLineage provider is not installed."""
    try:
        from airflow.providers.openlineage.extractors import OperatorLineage
        from openlineage.client.event_v2 import Dataset
        from openlineage.client.facet_v2 import external_query_run, sql_job
    except ImportError:
        return None
    run_facets: dict[str, Any] = {}
    if druid_task_id:
        run_facets["externalQuery"] = external_query_run.ExternalQueryRunFacet(
            externalQueryId=druid_task_id, source=druid_namespace(cluster_url) if cluster_url else SOURCE
        )
    job_facets: dict[str, Any] = {}
    if sql:
        job_facets["sql"] = sql_job.SQLJobFacet(query=sql, dialect=SOURCE)
    return OperatorLineage(
        inputs=[Dataset(namespace=ref.namespace, name=ref.name) for ref in inputs],
        outputs=[Dataset(namespace=ref.namespace, name=ref.name) for ref in outputs],
        run_facets=run_facets,
        job_facets=job_facets,
    )


def lineage_for(
    cluster_url: str | None,
    datasource: str | None,
    *,
    spec: dict[str, Any] | None = None,
    druid_task_id: str | None = None,
    sql: str | None = None,
) -> Any:
    """The lineage of one ingestion into ``datasource`` of the cluster at ``cluster_url`` (inputs from ``spec``).

    None when the extra is absent or nothing is known yet (the task failed before its spec was planned).
    """
    if not cluster_url or not datasource:
        return None
    inputs = spec_input_datasets(spec, cluster_url) if spec is not None else []
    return operator_lineage(
        outputs=[druid_dataset(cluster_url, datasource)], inputs=inputs, druid_task_id=druid_task_id,
        cluster_url=cluster_url, sql=sql,
    )
