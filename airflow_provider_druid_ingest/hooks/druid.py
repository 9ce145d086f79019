"""``DruidHook``: an Airflow connection of type ``druid_cluster`` turned into the core's Druid clients.

Why ``airflow.sdk.BaseHook`` and not ``HttpHook`` (apache-airflow-providers-http): every Druid call goes
through the package's own sans-I/O core (``druid_ingest``), which owns retries,
leader redirects (credentials only to configured hosts), timeouts and the error taxonomy, for both the
sync (requests) and async (aiohttp) clients. ``HttpHook.run``/``HttpAsyncHook.run`` would duplicate all of
that with different rules (tenacity retries, redirects followed by requests, ``extra`` headers), so the
only thing the hook does is map a connection to a :class:`~druid_ingest.ClusterConfig`.
No dependency on providers-http is needed.

Importing this module is cheap: the clients (requests / aiohttp) are imported when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseHook
from druid_ingest.errors import DruidError
from druid_ingest.wire import ClusterConfig

if TYPE_CHECKING:
    from airflow.sdk import Connection
    from druid_ingest.clients import AsyncDruidClient, DruidClient
    from druid_ingest.ops import AfterFailedPublish, SubmitOutcome
    from druid_ingest.planning import Plan
    from druid_ingest.wire import RetryPolicy

__all__ = ["CONN_TYPE", "TLS_PORTS", "DruidHook", "base_url_from", "config_from_connection"]

CONN_TYPE = "druid_cluster"
#: Druid's default TLS ports (Coordinator, Broker, Historical, Overlord, MiddleManager, Router) and 443
TLS_PORTS = frozenset({443, 8281, 8282, 8283, 8290, 8291, 9088})
_TRUE = ("1", "true", "yes", "on", "y", "t")


def _as_bool(value: Any, default: bool) -> bool:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE


def _as_float(value: Any, default: float) -> float:
    if value is None or value == "":
        return default
    return float(value)


def _as_hosts(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    items = value if isinstance(value, list | tuple) else str(value).replace(";", ",").split(",")
    return tuple(str(item).strip() for item in items if str(item).strip())


def base_url_from(host: str | None, port: int | None, schema: str | None, use_https: Any = None) -> str:
    """The Druid entry-point URL from a connection's host/port/schema (host may be a full URL)."""
    if not host:
        raise ValueError("the druid_cluster connection needs a host (e.g. http://router:8888 or router.example.com)")
    host = host.strip().rstrip("/")
    if "://" in host:
        scheme, rest = host.split("://", 1)
    else:
        explicit = (schema or "").strip().lower()
        if explicit in ("http", "https"):
            scheme = explicit
        elif _as_bool(use_https, False) or (port in TLS_PORTS):
            scheme = "https"
        else:
            scheme = "http"
        rest = host
    netloc, sep, path = rest.partition("/")
    if port and not netloc.rsplit("@", 1)[-1].rpartition("]")[2].count(":"):
        netloc = f"{netloc}:{port}"
    if scheme == "http" and _as_bool(use_https, False):
        scheme = "https"
    return f"{scheme}://{netloc}{sep}{path}"


def config_from_connection(conn: Connection, extra: dict[str, Any]) -> ClusterConfig:
    """Map an Airflow connection (and its already-parsed ``extra``) to a :class:`ClusterConfig`."""
    url = base_url_from(conn.host, conn.port, conn.schema, extra.get("use_https"))
    mode = str(extra.get("auth") or "basic").strip().lower()
    if mode not in ("basic", "bearer"):
        raise ValueError(f"druid_cluster connection {conn.conn_id!r}: extra auth={extra.get('auth')!r} is not "
                         "'basic' (Login/Password) or 'bearer' (the token in Password)")
    bearer = mode == "bearer"
    return ClusterConfig(
        url=url,
        overlord_url=extra.get("overlord_url") or None,
        coordinator_url=extra.get("coordinator_url") or None,
        broker_url=extra.get("broker_url") or None,
        console_url=extra.get("console_url") or None,
        username=None if bearer else conn.login or None,
        password=None if bearer else conn.password or None,
        token=(conn.password or None) if bearer else None,
        client_cert=extra.get("client_cert") or None,
        client_key=extra.get("client_key") or None,
        proxy=extra.get("proxy") or None,
        trust_env=_as_bool(extra.get("trust_env"), False),
        verify=_as_bool(extra.get("verify"), True),
        ca_bundle=extra.get("ca_bundle") or None,
        connect_timeout=_as_float(extra.get("connect_timeout"), 10.0),
        read_timeout=_as_float(extra.get("read_timeout"), 60.0),
        trusted_hosts=_as_hosts(extra.get("trusted_hosts")),
    )


class DruidHook(BaseHook):
    """Clients for one Druid cluster, configured by an Airflow connection of type ``druid_cluster``.

    Connection fields: **host** is the Router (or Coordinator-as-Overlord) URL or host name; **port** and
    **schema** (``http``/``https``) are honoured when host is not a full URL; https is also used when the
    ``use_https`` extra is true or the port is a Druid TLS port (443, 8281, 8282, 8290, 9088, ...).
    **login**/**password** are Druid basic-auth credentials. Extras: ``overlord_url``, ``coordinator_url``,
    ``broker_url`` (per-service overrides), ``console_url`` (web-console base for links), ``verify`` (TLS
    verification, default true), ``ca_bundle`` (path), ``connect_timeout``/``read_timeout`` (seconds) and
    ``trusted_hosts`` (comma-separated ``host:port`` allowed to receive credentials on leader redirects),
    ``auth`` (``basic``, the default, or ``bearer``: then **password** holds the bearer token and login is
    ignored), ``client_cert``/``client_key`` (PEM paths for TLS client auth), ``proxy`` (http(s) proxy URL) and
    ``trust_env`` (read HTTP(S)_PROXY/NO_PROXY from the environment; default false).

    :param druid_conn_id: the connection id (default ``druid_cluster_default``)
    :param retry: optional :class:`~druid_ingest.wire.RetryPolicy` for every HTTP call (the operators pass their
        ``http_retry=``; a hook has no Airflow ``retry_policy``, so the name stays)
    """

    conn_name_attr = "druid_conn_id"
    default_conn_name = "druid_cluster_default"
    conn_type = CONN_TYPE
    hook_name = "Druid cluster (native batch ingestion)"

    def __init__(self, druid_conn_id: str = default_conn_name, retry: RetryPolicy | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.druid_conn_id = druid_conn_id
        self.retry = retry
        self._config: ClusterConfig | None = None

    # ---- configuration ------------------------------------------------------------------------

    def get_config(self) -> ClusterConfig:
        """The cluster config from the connection (sync; use :meth:`aget_config` on an event loop)."""
        if self._config is None:
            conn = self.get_connection(self.druid_conn_id)
            self._config = config_from_connection(conn, conn.extra_dejson)
        return self._config

    async def aget_config(self) -> ClusterConfig:
        """The cluster config, fetched without blocking the event loop (triggers, async tasks)."""
        if self._config is None:
            from airflow.providers.common.compat.connection import get_async_connection, get_async_extra_dejson

            conn = await get_async_connection(self.druid_conn_id, hook=self)
            extra = await get_async_extra_dejson(conn)
            self._config = config_from_connection(conn, extra)
        return self._config

    # ---- clients ------------------------------------------------------------------------------

    def get_client(self, retry: RetryPolicy | None = None) -> DruidClient:
        """A synchronous :class:`~druid_ingest.clients._sync_client.DruidClient` (close it).

        ``retry`` overrides the hook's policy for this client only (the hook itself is never changed).
        """
        from druid_ingest.clients import DruidClient

        return DruidClient(self.get_config(), retry or self.retry)

    def get_conn(self) -> DruidClient:
        return self.get_client()

    async def get_async_client(self) -> AsyncDruidClient:
        """An :class:`~druid_ingest.clients._async_client.AsyncDruidClient`; use ``async with``."""
        from druid_ingest.clients import AsyncDruidClient

        return AsyncDruidClient(await self.aget_config(), self.retry)

    def console_task_url(self, druid_task_id: str) -> str:
        """Web-console deep link for a task (never contains credentials)."""
        return self.get_config().console_task_url(druid_task_id)

    def sql(self, query: str, parameters: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Run Druid SQL on the Broker and return the rows as dicts (reported to hook lineage: the datasources
        it reads as input assets, and common.sql's ``sql_job`` extra)."""
        from airflow_provider_druid_ingest.common.hook_lineage import report_sql

        with self.get_client() as client:
            rows = client.sql(query, parameters)
        report_sql(self, self.druid_conn_id, query, parameters=parameters, row_count=len(rows), job_extra=True)
        return rows

    def ensure_submitted(
        self, client: DruidClient, plan: Plan, *, allow_empty: bool = False,
        after_failed_publish: AfterFailedPublish = "fail",
    ) -> SubmitOutcome:
        """``client.ensure_submitted`` (adopt the live/succeeded task for this work, or submit the next attempt),
        reported to hook lineage: the datasource as output asset, the spec's input source as input assets."""
        from airflow_provider_druid_ingest.common.hook_lineage import report_submit

        outcome = client.ensure_submitted(plan, allow_empty=allow_empty, after_failed_publish=after_failed_publish)
        report_submit(self, self.druid_conn_id, plan.datasource, plan.task_spec,
                      client.config.base_url("broker"))
        return outcome

    # ---- UI "Test" button ---------------------------------------------------------------------

    def test_connection(self) -> tuple[bool, str]:
        """Check ``/status/health``, Overlord leadership, the login (on ``/workers``) and STATE WRITE.

        Health and ``isLeader`` are unsecured in Druid, so the worker listing is what proves the login: 401 fails
        the test; 403 (logged in, no STATE READ) passes with a note, and so does a login without STATE WRITE
        (status is then read per task). Each failure names the step, the URL, the cause and what to change.
        """
        from druid_ingest.clients import DruidClient
        from druid_ingest.errors import DruidAuthError, DruidRetriesExhaustedError
        from druid_ingest.wire import RetryPolicy

        step = "reading the connection"
        try:
            config = self.get_config()
            where = config.base_url("overlord")
            notes: list[str] = []
            with DruidClient(config, self.retry or RetryPolicy(max_attempts=2, deadline=15.0)) as client:
                step = "the health check (GET /status/health)"
                if not client.health("overlord"):
                    return False, f"Druid at {where} reports itself unhealthy (GET /status/health is not true)"
                step = "the leader check (GET /druid/indexer/v1/isLeader)"
                if not client.is_leader():
                    return False, (f"{where} answers but is not the Overlord leader: point the connection at a "
                                   "Router or at the leading Overlord")
                step = "the login check (GET /druid/indexer/v1/workers)"
                try:
                    capacity = client.capacity()
                    notes.append(f"{capacity.free_slots}/{capacity.total_slots} task slots free")
                except DruidAuthError as exc:
                    if exc.status != 403:
                        raise
                    notes.append("login accepted, but it may not list workers (no STATE READ)")
                step = "the permission check (POST /druid/indexer/v1/taskStatus)"
                if not client.state_write_permitted():
                    notes.append(
                        "note: this login has no STATE WRITE (Druid answered 403 to POST "
                        "/druid/indexer/v1/taskStatus), so task status is read one task at a time; submitting "
                        "and shutting down tasks need DATASOURCE WRITE on each datasource, which Druid checks "
                        "only on submit (a read-only user gets 403 there)"
                    )
        except DruidRetriesExhaustedError as exc:
            return False, f"Druid connection test failed at {step}: {exc.last} ({exc.attempts} attempts)"
        except (DruidError, ValueError) as exc:
            return False, f"Druid connection test failed at {step}: {exc}"
        return True, f"Connected to Druid at {where}: healthy, Overlord leader, " + "; ".join(notes)
