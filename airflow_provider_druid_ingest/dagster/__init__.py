"""The Dagster face (``pip install 'airflow-provider-druid-ingest[dagster]'``), thin over the same core.

The only place in the package that imports ``dagster``: the core and the Airflow face never do.

- :class:`DruidResource`: the cluster (URLs, credentials via ``EnvVar``, TLS, timeouts, poll policy);
  ``get_client()`` is the core's ``DruidClient``.
- :func:`druid_daily_asset`: a daily-partitioned (UTC) asset per datasource plus its blocking handoff check.
- :func:`druid_ingest_ops` / :func:`druid_daily_job`: the op flavour (submit op -> wait op).
- :func:`pool_limit`: the concurrency pool's limit from Druid's task slots.
"""

from .assets import DEFAULT_POOL, DruidDailyAsset, druid_daily_asset
from .checks import CHECK_NAME, handoff_check
from .ops import DruidIngestOps, druid_daily_job, druid_ingest_ops
from .partitions import PartitionWindow, daily_partitions, druid_interval
from .pools import cluster_pool_limit, concurrency_set_command, pool_limit
from .resource import DruidResource
from .run_config import IDEMPOTENCY_TAG, DruidRunConfig
from .steps import WaitOptions

__all__ = [
    "CHECK_NAME",
    "DEFAULT_POOL",
    "IDEMPOTENCY_TAG",
    "DruidDailyAsset",
    "DruidIngestOps",
    "DruidResource",
    "DruidRunConfig",
    "PartitionWindow",
    "WaitOptions",
    "cluster_pool_limit",
    "concurrency_set_command",
    "daily_partitions",
    "druid_daily_asset",
    "druid_daily_job",
    "druid_ingest_ops",
    "druid_interval",
    "handoff_check",
    "pool_limit",
]
