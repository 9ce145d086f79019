"""Where the cluster is and how to talk to it: URLs per service, credentials, TLS, timeouts.

The password lives in a :class:`Secret` whose ``repr``/``str`` are masked, so a config object can be
logged, put in an exception or rendered by a debugger without leaking it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

__all__ = ["SERVICES", "ClusterConfig", "Secret", "Service", "netloc_of", "strip_userinfo"]

Service = Literal["overlord", "coordinator", "broker", "router"]
SERVICES: tuple[Service, ...] = ("overlord", "coordinator", "broker", "router")


class Secret:
    """A string that never prints itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)


def _normalize(url: str | None) -> str | None:
    if not url:
        return None
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    return url.rstrip("/")


def strip_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """Split ``http://user:pw@host:port/x`` into (``http://host:port/x``, user, pw)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None, None
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return clean, parts.username, parts.password


def netloc_of(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) with the default port filled in, for comparing hosts."""
    parts = urlsplit(url)
    scheme = (parts.scheme or "http").lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower(), port


@dataclass(frozen=True)
class ClusterConfig:
    """How to reach one Druid cluster.

    ``url`` is the single entry point (a Router with ``druid.router.managementProxy.enabled=true``, or a
    Coordinator running as Overlord). ``overlord_url``/``coordinator_url``/``broker_url`` override it per
    service. Credentials are sent only to the configured hosts and to ``trusted_hosts`` ("host:port").
    """

    url: str | None = None
    overlord_url: str | None = None
    coordinator_url: str | None = None
    broker_url: str | None = None
    console_url: str | None = None
    username: str | None = None
    password: Secret | str | None = None  # a str is wrapped in a Secret at construction
    verify: bool = True
    ca_bundle: str | None = None
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    trusted_hosts: tuple[str, ...] = field(default_factory=tuple)
    #: a bearer token (OIDC/JWT in front of Druid), sent as ``Authorization: Bearer`` instead of basic auth,
    #: to the same trusted hosts only; a str is wrapped in a Secret at construction
    token: Secret | str | None = None
    #: TLS client certificate (PEM) and its private key (PEM, unencrypted: requests cannot take a key password)
    client_cert: str | None = None
    client_key: str | None = None
    #: an explicit HTTP(S) proxy URL for every call (``http://proxy:3128``); None: no proxy
    proxy: str | None = None
    #: whether the transports may read the environment (HTTP(S)_PROXY, NO_PROXY, ~/.netrc); off unless asked
    trust_env: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.password, str):
            object.__setattr__(self, "password", Secret(self.password))
        if isinstance(self.token, str):
            object.__setattr__(self, "token", Secret(self.token) if self.token else None)
        if self.client_key and not self.client_cert:
            raise ValueError("ClusterConfig got `client_key` without `client_cert`: give the client certificate "
                             "file (PEM) too, or drop the key")
        if self.proxy is not None:
            proxy = self.proxy.strip()
            if proxy and "://" not in proxy:
                proxy = "http://" + proxy
            if proxy and urlsplit(proxy).scheme not in ("http", "https"):
                raise ValueError(f"ClusterConfig `proxy` {self.proxy!r} is not an http(s) proxy URL; give e.g. "
                                 "'http://proxy.example:3128'")
            object.__setattr__(self, "proxy", proxy or None)
        user, pw = self.username, self.password
        for name in ("url", "overlord_url", "coordinator_url", "broker_url", "console_url"):
            raw = _normalize(getattr(self, name))
            if raw:
                raw, u, p = strip_userinfo(raw)
                user = user or u
                if p and not pw:
                    pw = Secret(p)
            object.__setattr__(self, name, raw)
        object.__setattr__(self, "username", user)
        object.__setattr__(self, "password", pw)
        if not (self.url or self.overlord_url):
            raise ValueError("ClusterConfig needs `url` (a Router or Coordinator-as-Overlord) or `overlord_url`")

    def forwarding_proxy(self, url: str) -> str:
        """``host:port`` of the configured proxy when it forwards this call itself (a plain-http URL: the proxy
        reads the request and may answer it), '' otherwise (no proxy, or an https tunnel only Druid answers in)."""
        if not self.proxy or urlsplit(url).scheme != "http":
            return ""
        parts = urlsplit(self.proxy)
        return f"{parts.hostname or '?'}:{parts.port or (443 if parts.scheme == 'https' else 80)}"

    def base_url(self, service: Service) -> str:
        explicit = {
            "overlord": self.overlord_url,
            "coordinator": self.coordinator_url,
            "broker": self.broker_url,
            "router": self.url,
        }[service]
        base = explicit or self.url or self.overlord_url
        assert base is not None
        return base

    @property
    def auth(self) -> tuple[str, str] | None:
        if self.username and isinstance(self.password, Secret) and self.password:
            return self.username, self.password.reveal()
        return None

    @property
    def has_credentials(self) -> bool:
        """Whether calls carry an ``Authorization`` header (basic auth or a bearer token)."""
        return self.authorization_header() is not None

    def authorization_header(self) -> str | None:
        """The ``Authorization`` value both transports send (only to trusted hosts; see ``exchange``).

        A token wins over a username/password: a deployment behind an OIDC proxy takes one or the other."""
        if isinstance(self.token, Secret) and self.token:
            return "Bearer " + self.token.reveal()
        if self.auth is None:
            return None
        import base64

        return "Basic " + base64.b64encode(":".join(self.auth).encode()).decode("ascii")

    def trusted_netlocs(self) -> set[tuple[str, str, int]]:
        """The (scheme, host, port) triples that may receive credentials."""
        found = {
            netloc_of(u)
            for u in (self.url, self.overlord_url, self.coordinator_url, self.broker_url)
            if u
        }
        for hp in self.trusted_hosts:
            found.add(netloc_of(hp if "://" in hp else "http://" + hp))
            found.add(netloc_of("https://" + hp) if "://" not in hp else netloc_of(hp))
        return found

    @property
    def tls_verify(self) -> bool | str:
        """What requests' ``verify=`` wants: a CA bundle path, or a bool."""
        if not self.verify:
            return False
        return self.ca_bundle or True

    @property
    def tls_client_cert(self) -> str | tuple[str, str] | None:
        """What requests' ``cert=`` wants: the cert file, or (cert, key)."""
        if not self.client_cert:
            return None
        return (self.client_cert, self.client_key) if self.client_key else self.client_cert

    def console_task_url(self, task_id: str) -> str:
        """Deep link to the task in the Druid web console (served by the Router)."""
        from urllib.parse import quote

        base = self.console_url or self.url or self.overlord_url
        return f"{base}/unified-console.html#tasks/task_id~{quote(task_id, safe='')}"
