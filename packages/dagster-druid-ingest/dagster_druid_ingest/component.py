"""The Dagster Components: ``defs.yaml`` for one Druid datasource (native spec or MSQ statement), registered for
``dg`` through the ``dagster_dg_cli.registry_modules`` entry point (pyproject.toml).

.. code-block:: yaml

    type: dagster_druid_ingest.DruidIngestComponent
    attributes:
      connection: {url_env: DRUID_URL, username_env: DRUID_USER, password_env: DRUID_PASSWORD}
      spec: events_web.json            # relative to this folder
      datasource: events_hourly
      input_locations: ["/data/events/{partition_key}"]
      partitions: {type: hourly, start_date: "2026-11-01-00:00", timezone: UTC}
      pool: druid_ingest
      translation: {group_name: druid, owners: ["team:data"]}

Credentials are names of environment variables only: there is no field for a literal password (an unknown key
is refused when the YAML loads), and the resource gets ``dg.EnvVar``s, so Dagster stores only the names. The asset
is the decorator's (``@druid_assets``), so the Component, the decorator and the factories plan, submit and gate
identically; the blocking ``segments_queryable`` check comes with it.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import dagster as dg
from dagster.components.utils.translation import ResolvedTranslationFn
from druid_ingest.ops import DEFAULT_HANDOFF_TIMEOUT, DEFAULT_TASK_TIMEOUT

from dagster_druid_ingest.assets import DEFAULT_POOL
from dagster_druid_ingest.decorator import DruidIngestion, druid_assets, druid_handoff_check, druid_msq_assets
from dagster_druid_ingest.partitions import time_partitions
from dagster_druid_ingest.resource import DruidResource
from dagster_druid_ingest.steps import WaitOptions
from dagster_druid_ingest.translator import DagsterDruidTranslator, DruidAssetProps

__all__ = ["DruidConnection", "DruidIngestComponent", "DruidMsqIngestComponent", "DruidPartitions", "DruidWait"]


#: one resource per distinct connection (Dagster merges component definitions by resource identity)
_RESOURCES: dict[str, DruidResource] = {}


class DruidConnection(dg.Model):
    """The cluster: a URL (or the name of the variable holding it) and credentials by variable name only."""

    url: str | None = None
    url_env: str | None = None
    username_env: str | None = None
    password_env: str | None = None
    verify: bool = True
    ca_bundle: str | None = None
    trusted_hosts: list[str] = []
    read_timeout: float = 60.0
    poll_interval: float = 5.0
    max_poll_interval: float = 60.0
    detect_within: float | None = None
    resource_key: str = "druid"

    def resource(self) -> DruidResource:
        if not (self.url or self.url_env):
            raise ValueError("connection: give url or url_env (e.g. url_env: DRUID_URL)")
        made = DruidResource(
            url=dg.EnvVar(self.url_env) if self.url_env else self.url,
            username=dg.EnvVar(self.username_env) if self.username_env else None,
            password=dg.EnvVar(self.password_env) if self.password_env else None,
            verify=self.verify, ca_bundle=self.ca_bundle, trusted_hosts=list(self.trusted_hosts),
            read_timeout=self.read_timeout, poll_interval=self.poll_interval,
            max_poll_interval=self.max_poll_interval, detect_within=self.detect_within,
        )
        made.poll_schedule()  # a bad detect_within fails when the definitions load, naming it
        return made


class DruidPartitions(dg.Model):
    """A time-window partitions definition (``partitions.time_partitions``)."""

    type: Literal["hourly", "daily", "weekly", "monthly", "cron"]
    start_date: str
    end_date: str | None = None
    timezone: str = "UTC"
    minute_offset: int = 0
    hour_offset: int = 0
    day_offset: int = 0
    end_offset: int = 0
    cron_schedule: str | None = None
    fmt: str | None = None

    def build(self) -> dg.TimeWindowPartitionsDefinition:
        return time_partitions(self.type, self.start_date, end_date=self.end_date, timezone=self.timezone,
                               minute_offset=self.minute_offset, hour_offset=self.hour_offset,
                               day_offset=self.day_offset, end_offset=self.end_offset,
                               cron_schedule=self.cron_schedule, fmt=self.fmt)


class DruidWait(dg.Model):
    """How long to wait and what counts as done (``steps.WaitOptions``)."""

    task_timeout: float = DEFAULT_TASK_TIMEOUT
    handoff_timeout: float = DEFAULT_HANDOFF_TIMEOUT
    on_never: Literal["fail", "pass"] = "fail"
    allow_empty: bool = False
    shutdown_on_terminate: bool = True
    shutdown_on_timeout: bool = True

    def options(self) -> WaitOptions:
        return WaitOptions(self.task_timeout, self.handoff_timeout, self.on_never, self.allow_empty,
                           self.shutdown_on_terminate, self.shutdown_on_timeout)


class _Translator(DagsterDruidTranslator):
    """The default translator, then the YAML ``translation`` block (template variable ``data``: the props)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def get_asset_spec(self, props: DruidAssetProps) -> dg.AssetSpec:
        base = super().get_asset_spec(props)
        return self.fn(base, props) if self.fn else base


@dataclass(kw_only=True)
class _DruidComponentBase(dg.Component, dg.Resolvable):
    connection: DruidConnection
    partitions: DruidPartitions
    datasource: str | None = None
    pool: str | None = DEFAULT_POOL
    check_pool: str | None = None
    idempotency_key: str | None = None
    wait: DruidWait = field(default_factory=DruidWait)
    deps: list[str] = field(default_factory=list)
    translation: ResolvedTranslationFn[DruidAssetProps] = None

    def translator(self) -> DagsterDruidTranslator:
        return _Translator(self.translation)

    def execute(self, context: dg.AssetExecutionContext, druid: DruidIngestion) -> Any:
        """What a materialization does: override to add steps around the ingestion."""
        return druid.ingest(context)

    def _defs(self, assets_def: dg.AssetsDefinition) -> dg.Definitions:
        """The asset, its gate and the cluster's resource (one object per connection: components with the same
        connection share it; different connections under one key are refused when the definitions merge)."""
        check = druid_handoff_check(assets_def, self.wait.options(), pool=self.check_pool)
        resource = _RESOURCES.setdefault(self.connection.model_dump_json(), self.connection.resource())
        return dg.Definitions(assets=[assets_def], asset_checks=[check],
                              resources={self.connection.resource_key: resource})

    def _deps(self) -> list[dg.AssetKey]:
        return [dg.AssetKey.from_user_string(dep) for dep in self.deps]


@dataclass(kw_only=True)
class DruidIngestComponent(_DruidComponentBase):
    """One Druid datasource ingested per time-window partition from a native batch spec template.

    ``spec``: a ``.json``/Jinja file relative to the component's folder, or the spec inline as a mapping.
    """

    spec: str | dict[str, Any]
    input_locations: list[str] = field(default_factory=list)
    allow_unaligned: bool = False
    preflight: Literal["fail", "warn"] = "fail"

    def build_defs(self, context: dg.ComponentLoadContext) -> dg.Definitions:
        spec = self.spec if isinstance(self.spec, dict) else context.path / self.spec
        decorate = druid_assets(
            spec=spec, partitions_def=self.partitions.build(), input_locations=self.input_locations,
            datasource=self.datasource, translator=self.translator(), idempotency_key=self.idempotency_key,
            pool=self.pool, resource_key=self.connection.resource_key, options=self.wait.options(),
            deps=self._deps(), allow_unaligned=self.allow_unaligned, preflight=self.preflight,
            partitions_field="partitions")
        return self._defs(decorate(self.execute))


@dataclass(kw_only=True)
class DruidMsqIngestComponent(_DruidComponentBase):
    """One Druid datasource ingested per partition by an MSQ ``REPLACE``/``INSERT`` statement template.

    ``sql``: a ``.sql`` file relative to the component's folder (a file, because Dagster would render the
    statement's ``{{ interval_start }}`` itself if it were written in the YAML).
    """

    sql: str
    query_context: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    allow_overwrite_all: bool = False

    def build_defs(self, context: dg.ComponentLoadContext) -> dg.Definitions:
        decorate = druid_msq_assets(
            sql=Path(context.path / self.sql), partitions_def=self.partitions.build(), datasource=self.datasource,
            query_context=self.query_context, variables=self.variables, translator=self.translator(),
            idempotency_key=self.idempotency_key, allow_overwrite_all=self.allow_overwrite_all, pool=self.pool,
            resource_key=self.connection.resource_key, options=self.wait.options(), deps=self._deps(),
            partitions_field="partitions")
        return self._defs(decorate(self.execute))
