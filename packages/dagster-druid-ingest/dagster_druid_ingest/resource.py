"""``DruidResource``: Dagster config for one Druid cluster, handing out the core's client.

Only configuration lives here. Every Druid call (retries, leader redirects, the credential rule, the error
taxonomy, the waits) is the core's ``DruidClient``; this maps serialisable Dagster config onto
``ClusterConfig``, ``RetryPolicy`` and ``PollSchedule``, so the Dagster face cannot drift from the Airflow one.
Pass the password as ``dg.EnvVar("DRUID_PASSWORD")``: Dagster then stores only the variable's name in run
config, and the core keeps the value in a ``Secret`` that never prints.
"""

from typing import TYPE_CHECKING

import dagster as dg
from druid_ingest.ops import PollSchedule
from druid_ingest.wire import ClusterConfig, RetryPolicy
from pydantic import Field

if TYPE_CHECKING:  # requests is imported by the first client, not by loading a code location
    from druid_ingest.clients import DruidClient

__all__ = ["DruidResource"]


class DruidResource(dg.ConfigurableResource):  # type: ignore[type-arg]  # generic only for Dagster
    """One Druid cluster: a Router URL (or Coordinator-as-Overlord), or per-service URLs.

    ``get_client()`` returns a new core ``DruidClient``; use it as a context manager so its HTTP session closes.
    """

    url: str | None = Field(default=None, description="Router (management proxy on) or Coordinator-as-Overlord")
    overlord_url: str | None = Field(default=None, description="per-service override (no Router)")
    coordinator_url: str | None = Field(default=None, description="per-service override (no Router)")
    broker_url: str | None = Field(default=None, description="per-service override (no Router), for SQL")
    console_url: str | None = Field(default=None, description="web console base for task links (default: url)")
    username: str | None = Field(default=None, description="Druid basic-auth user")
    password: str | None = Field(default=None, description='Druid basic-auth password: dg.EnvVar("DRUID_PASSWORD")')
    verify: bool = Field(default=True, description="verify TLS certificates")
    ca_bundle: str | None = Field(default=None, description="CA bundle file for TLS verification")
    connect_timeout: float = Field(default=10.0, description="seconds to connect")
    read_timeout: float = Field(default=60.0, description="seconds to wait for a response")
    trusted_hosts: list[str] = Field(default_factory=list, description="host:port that may get credentials")
    token: str | None = Field(default=None, description='bearer token (instead of username/password): '
                              'dg.EnvVar("DRUID_TOKEN")')
    client_cert: str | None = Field(default=None, description="PEM client certificate for TLS client auth")
    client_key: str | None = Field(default=None, description="PEM private key (unencrypted) of client_cert")
    proxy: str | None = Field(default=None, description="http(s) proxy URL for every call")
    trust_env: bool = Field(default=False, description="read HTTP(S)_PROXY/NO_PROXY from the environment")
    request_max_attempts: int = Field(default=10, description="tries per HTTP call, transient errors only")
    request_initial_delay: float = Field(default=0.5, description="first retry backoff, seconds")
    request_max_delay: float = Field(default=30.0, description="backoff cap, seconds")
    request_deadline: float = Field(default=300.0, description="seconds one call may take with its retries")
    poll_interval: float = Field(default=5.0, description="first poll delay while waiting, seconds")
    max_poll_interval: float = Field(default=60.0, description="poll delay cap, seconds")
    poll_multiplier: float = Field(default=1.5, description="poll delay growth per poll")
    detect_within: float | None = Field(
        default=None, description="detection-latency target of a task wait, seconds: its end is seen within it (at "
        "p95 of the usual run times with history), with the fewest status reads; >= poll_interval")

    def cluster_config(self) -> ClusterConfig:
        """The core's view of this cluster (the password wrapped in a ``Secret``)."""
        return ClusterConfig(
            url=self.url,
            overlord_url=self.overlord_url,
            coordinator_url=self.coordinator_url,
            broker_url=self.broker_url,
            console_url=self.console_url,
            username=self.username,
            password=self.password,
            verify=self.verify,
            ca_bundle=self.ca_bundle,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
            trusted_hosts=tuple(self.trusted_hosts),
            token=self.token,
            client_cert=self.client_cert,
            client_key=self.client_key,
            proxy=self.proxy,
            trust_env=self.trust_env,
        )

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(
            max_attempts=self.request_max_attempts,
            initial_delay=self.request_initial_delay,
            max_delay=self.request_max_delay,
            deadline=self.request_deadline,
        )

    def poll_schedule(self) -> PollSchedule:
        """The core schedule; a bad ``detect_within`` fails here with a DruidUsageError naming it."""
        return PollSchedule(self.poll_interval, self.max_poll_interval, self.poll_multiplier, self.detect_within)

    def get_client(self, retry: RetryPolicy | None = None) -> "DruidClient":
        """A new core client (``with resource.get_client() as druid: ...``); ``retry`` overrides the policy."""
        from druid_ingest.clients import DruidClient

        return DruidClient(self.cluster_config(), retry or self.retry_policy())
