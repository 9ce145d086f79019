"""The nginx of dev/nginx/nginx.sh as the TLS + auth slice sees it: its URLs, users and access logs.

``scripts/test.sh`` starts it before the e2e suite; by hand: ``bash dev/nginx/nginx.sh start``. When it is not
running the slice FAILS (never skips) with that instruction.
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
)


@dataclass(frozen=True)
class Hit:
    """One access-log line: whether an Authorization header arrived, never its value."""

    port: int
    method: str
    path: str
    status: int
    auth_header: bool
    user: str


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

    def since(self, mark: int) -> list[Hit]:
        # nginx writes a line just after the response's last byte: read until the file stops growing
        text, previous = self._read(mark), None
        while text != previous:
            time.sleep(0.15)
            previous, text = text, self._read(mark)
        hits = []
        for line in text.splitlines():
            found = _LINE.search(line)
            assert found, f"unexpected nginx log line (log_format changed?): {line!r}"
            hits.append(Hit(int(found["port"]), found["method"], found["path"], int(found["status"]),
                            found["auth"] == "yes", found["user"]))
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


def load() -> Nginx:
    """The running harness, or a loud failure saying how to start it."""
    status = subprocess.run(["bash", str(SCRIPT), "status"], capture_output=True, text=True)
    if status.returncode != 0:
        pytest.fail(
            "the TLS + auth slice needs the nginx of dev/nginx (TLS, basic auth, 307 host) in front of the dev "
            "Druid; `bash scripts/test.sh` starts it, or run `bash dev/nginx/nginx.sh start` first. "
            f"status said: {status.stdout.strip() or status.stderr.strip()}",
            pytrace=False,
        )
    out = subprocess.run(["bash", str(SCRIPT), "env"], capture_output=True, text=True, check=True).stdout
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    logs = tuple(Path(env[k]) for k in ("NGINX_ACCESS_LOG", "NGINX_REDIRECT_LOG", "NGINX_ERROR_LOG"))
    return Nginx(
        tls_url=env["NGINX_TLS_URL"],
        redirect_url=env["NGINX_REDIRECT_URL"],
        ca_bundle=env["NGINX_CA_BUNDLE"],
        admin=(env["NGINX_ADMIN_USER"], env["NGINX_ADMIN_PASSWORD"]),
        reader=(env["NGINX_READER_USER"], env["NGINX_READER_PASSWORD"]),
        access=AccessLog(logs[0]),
        redirects=AccessLog(logs[1]),
        log_files=logs,
    )
