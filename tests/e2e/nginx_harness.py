"""The nginx (and squid) of dev/nginx/nginx.sh as the TLS + auth slice sees them: URLs, users, token, client
certificates, proxies and access logs.

``scripts/test.sh`` starts them before the e2e suite; by hand: ``bash dev/nginx/nginx.sh start``. When either is
not running the slice FAILS (never skips) with that instruction.
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "dev/nginx/nginx.sh"
_LINE = re.compile(
    r'port=(?P<port>\d+) host=(?P<host>\S+) "(?P<method>\S+) (?P<path>\S+) [^"]*" status=(?P<status>\d+) '
    r"auth_header=(?P<auth>yes|no) user=(?P<user>\S+)"
    r'(?: bytes=\d+ scheme=(?P<scheme>\S+) client="(?P<client>[^"]*)")?'
)
_SQUID_LINE = re.compile(r'"(?P<method>\S+) (?P<target>\S+) HTTP/[^"]*" status=(?P<status>\d+)')


@dataclass(frozen=True)
class Hit:
    """One access-log line: whether an Authorization header arrived, never its value."""

    port: int
    method: str
    path: str
    status: int
    auth_header: bool
    user: str
    #: none, basic, bearer (the Authorization scheme, never its value)
    scheme: str = ""
    #: nginx's verdict on the TLS client certificate: NONE, SUCCESS, FAILED:<reason>
    client: str = ""


@dataclass(frozen=True)
class ProxyHit:
    """One squid access-log line: ``CONNECT host:port`` for HTTPS, the absolute URL for http://."""

    method: str
    target: str
    status: int


class AccessLog:
    """Lines appended to one nginx access log since a mark (nginx writes each line when the response ends)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _size(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def mark(self) -> int:
        """Where the next request's line will start, once the lines of requests already answered are written
        (nginx logs just after the response's last byte, so a client can be faster than the line)."""
        size, previous = self._size(), None
        while size != previous:
            time.sleep(0.15)
            previous, size = size, self._size()
        return size

    def _read(self, mark: int) -> str:
        with self.path.open("rb") as fh:
            fh.seek(mark)
            return fh.read().decode()

    def _text_since(self, mark: int) -> str:
        # nginx writes a line just after the response's last byte: read until the file stops growing
        text, previous = self._read(mark), None
        while text != previous:
            time.sleep(0.15)
            previous, text = text, self._read(mark)
        return text

    def since(self, mark: int) -> list[Hit]:
        hits = []
        for line in self._text_since(mark).splitlines():
            found = _LINE.search(line)
            assert found, f"unexpected nginx log line (log_format changed?): {line!r}"
            hits.append(Hit(int(found["port"]), found["method"], found["path"], int(found["status"]),
                            found["auth"] == "yes", found["user"], found["scheme"] or "", found["client"] or ""))
        return hits


class SquidLog(AccessLog):
    """squid's access log (squid.conf.in's ``druid`` format); its port probes (no request line) are left out."""

    def since(self, mark: int) -> list[ProxyHit]:  # type: ignore[override]
        hits = []
        for line in self._text_since(mark).splitlines():
            if "error:transaction-end-before-headers" in line:
                continue  # a connection that sent nothing: the harness's readiness probe
            found = _SQUID_LINE.search(line)
            assert found, f"unexpected squid log line (logformat changed?): {line!r}"
            hits.append(ProxyHit(found["method"], found["target"], int(found["status"])))
        return hits


@dataclass(frozen=True)
class Nginx:
    tls_url: str
    redirect_url: str
    ca_bundle: str
    admin: tuple[str, str]
    reader: tuple[str, str]
    access: AccessLog
    redirects: AccessLog
    log_files: tuple[Path, ...]
    #: the plain-http Druid behind nginx (what the http:// proxy forwards to)
    upstream_url: str
    #: TLS + exactly this bearer token, then the Router
    token_url: str
    token: str
    tokens: AccessLog
    #: TLS that verifies client certificates against the harness's CA
    mtls_url: str
    client_cert: str
    client_key: str
    #: a client certificate (and key) from another CA, which the mTLS server does not trust
    other_client_cert: str
    other_client_key: str
    mtls: AccessLog
    #: nginx as a forward proxy for http:// URLs (to the upstream only), and its log
    proxy_url: str
    proxied: AccessLog
    #: squid, the HTTPS (CONNECT) proxy, and its log
    squid_url: str
    squid: SquidLog


def load() -> Nginx:
    """The running harness, or a loud failure saying how to start it."""
    status = subprocess.run(["bash", str(SCRIPT), "status"], capture_output=True, text=True)
    if status.returncode != 0:
        pytest.fail(
            "the TLS + auth slice needs the nginx of dev/nginx (TLS, basic auth, 307 host, bearer token, client "
            "certificates, http:// proxy) and its squid (HTTPS proxy) in front of the dev Druid; `bash "
            "scripts/test.sh` starts them, or run `bash dev/nginx/nginx.sh start` first. "
            f"status said: {status.stdout.strip() or status.stderr.strip()}",
            pytrace=False,
        )
    out = subprocess.run(["bash", str(SCRIPT), "env"], capture_output=True, text=True, check=True).stdout
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    logs = tuple(Path(env[k]) for k in ("NGINX_ACCESS_LOG", "NGINX_REDIRECT_LOG", "NGINX_ERROR_LOG",
                                        "NGINX_TOKEN_LOG", "NGINX_MTLS_LOG", "NGINX_PROXY_LOG", "SQUID_ACCESS_LOG"))
    return Nginx(
        tls_url=env["NGINX_TLS_URL"],
        redirect_url=env["NGINX_REDIRECT_URL"],
        ca_bundle=env["NGINX_CA_BUNDLE"],
        admin=(env["NGINX_ADMIN_USER"], env["NGINX_ADMIN_PASSWORD"]),
        reader=(env["NGINX_READER_USER"], env["NGINX_READER_PASSWORD"]),
        access=AccessLog(logs[0]),
        redirects=AccessLog(logs[1]),
        log_files=logs,
        upstream_url=env["NGINX_UPSTREAM_URL"],
        token_url=env["NGINX_TOKEN_URL"],
        token=env["NGINX_TOKEN"],
        tokens=AccessLog(logs[3]),
        mtls_url=env["NGINX_MTLS_URL"],
        client_cert=env["NGINX_CLIENT_CERT"],
        client_key=env["NGINX_CLIENT_KEY"],
        other_client_cert=env["NGINX_OTHER_CLIENT_CERT"],
        other_client_key=env["NGINX_OTHER_CLIENT_KEY"],
        mtls=AccessLog(logs[4]),
        proxy_url=env["NGINX_PROXY_URL"],
        proxied=AccessLog(logs[5]),
        squid_url=env["SQUID_URL"],
        squid=SquidLog(logs[6]),
    )
