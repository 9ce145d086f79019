"""The Dagster integration (``pip install dagster-druid-ingest``), thin over the core ``druid_ingest``.

Depends on the core and Dagster, never on Airflow: the core and the Airflow provider never import ``dagster``.

- :class:`DruidResource`: the cluster (URLs, credentials via ``EnvVar``, TLS, timeouts, poll policy);
  ``get_client()`` is the core's ``DruidClient``.
- :func:`druid_daily_asset`: a daily-partitioned (UTC) asset per datasource plus its blocking handoff check.
- :func:`druid_ingest_ops` / :func:`druid_daily_job`: the op flavour (submit op -> wait op).
- :func:`druid_assets` / :func:`druid_msq_assets`: decorators over ``multi_asset`` for any time-window
  partitions, with :class:`DagsterDruidTranslator`; :func:`druid_handoff_check` is their gate.
- :class:`DruidIngestComponent` / :class:`DruidMsqIngestComponent`: the same as ``defs.yaml`` Components (``dg``).
- :func:`druid_compaction_assets`: a compaction per partition (``<datasource>/compacted``), gated the same way.
- :func:`druid_retention_op`: drop, then kill, each partition's window ``keep_days`` back (retention);
  :func:`druid_segment_write_op`: any segment write (a drop) of each partition's window.
- :func:`druid_served_sensor`: runs downstream work when Druid newly serves a partition, whoever wrote it.
- :func:`pool_limit`: the concurrency pool's limit from Druid's task slots.
"""

__version__ = "0.1.0"

from dagster_druid_ingest.assets import DEFAULT_POOL, DruidDailyAsset, druid_daily_asset
from dagster_druid_ingest.checks import CHECK_NAME, handoff_check
from dagster_druid_ingest.compaction import CompactionTemplate, druid_compaction_assets
from dagster_druid_ingest.component import DruidIngestComponent, DruidMsqIngestComponent
from dagster_druid_ingest.decorator import DruidIngestion, druid_assets, druid_handoff_check, druid_msq_assets
from dagster_druid_ingest.msq import MsqTemplate
from dagster_druid_ingest.ops import DruidIngestOps, druid_daily_job, druid_ingest_ops
from dagster_druid_ingest.partitions import PartitionWindow, daily_partitions, druid_interval, time_partitions
from dagster_druid_ingest.pools import cluster_pool_limit, concurrency_set_command, pool_limit
from dagster_druid_ingest.resource import DruidResource
from dagster_druid_ingest.retention import druid_retention_op, druid_segment_write_op
from dagster_druid_ingest.run_config import IDEMPOTENCY_TAG, DruidRunConfig
from dagster_druid_ingest.served_sensor import druid_served_sensor
from dagster_druid_ingest.steps import WaitOptions
from dagster_druid_ingest.translator import DagsterDruidTranslator, DruidAssetProps

__all__ = [
    "CHECK_NAME",
    "DEFAULT_POOL",
    "IDEMPOTENCY_TAG",
    "CompactionTemplate",
    "DagsterDruidTranslator",
    "DruidAssetProps",
    "DruidDailyAsset",
    "DruidIngestComponent",
    "DruidIngestOps",
    "DruidIngestion",
    "DruidMsqIngestComponent",
    "DruidResource",
    "DruidRunConfig",
    "MsqTemplate",
    "PartitionWindow",
    "WaitOptions",
    "cluster_pool_limit",
    "concurrency_set_command",
    "daily_partitions",
    "druid_assets",
    "druid_compaction_assets",
    "druid_daily_asset",
    "druid_daily_job",
    "druid_handoff_check",
    "druid_ingest_ops",
    "druid_interval",
    "druid_msq_assets",
    "druid_retention_op",
    "druid_segment_write_op",
    "druid_served_sensor",
    "handoff_check",
    "pool_limit",
    "time_partitions",
]
