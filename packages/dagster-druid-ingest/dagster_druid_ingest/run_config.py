"""Per-run input of an ingesting step: the idempotency key that forces re-ingestion of unchanged work.

The Druid task id is a function of the rendered spec, so re-materializing a partition adopts the succeeded task
and ingests nothing. When the input files changed but the spec did not, a new key starts a new id series. Two
ways to pass it, because Dagster's CLI offers run config and backfills offer tags:
``--config-json '{"ops": {"events_web": {"config": {"idempotency_key": "fix-1"}}}}'``, or the run tag
``druid/idempotency_key`` (a backfill's tags reach every run it launches). Config wins over the tag.
"""

import dagster as dg

__all__ = ["IDEMPOTENCY_TAG", "DruidRunConfig", "idempotency_key_of"]

IDEMPOTENCY_TAG = "druid/idempotency_key"


class DruidRunConfig(dg.Config):
    """Run config of the Druid asset and the submit op."""

    idempotency_key: str = ""


def idempotency_key_of(config: DruidRunConfig, tags: dict[str, str]) -> str | None:
    """The run's key (config, then tag), or None for the factory's default."""
    return config.idempotency_key or tags.get(IDEMPOTENCY_TAG) or None
