"""``GET /status``: the Druid version a process reports, which the drop picks its segment write API by
(``planning.segment_write_api``). Re-exported by ``endpoints``, the one face for every endpoint."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from druid_ingest.wire import Request, Response, raise_for_status

__all__ = ["DruidVersion", "druid_version", "parse_druid_version"]


@dataclass(frozen=True)
class DruidVersion:
    """What ``/status`` said: ``version`` (None when the answer had none) and who said it (scheme://host:port)."""

    version: str | None
    answered_by: str


def druid_version() -> Request:
    """Every Druid process (the Router too) answers ``/status`` with ``{"version", "modules", "memory"}``."""
    return Request("GET", "overlord", "/status")


def parse_druid_version(resp: Response, req: Request) -> DruidVersion:
    raise_for_status(resp, req)
    data = resp.json()
    version = data.get("version") if isinstance(data, dict) else None
    parts = urlsplit(resp.url)
    return DruidVersion(version if isinstance(version, str) else None, f"{parts.scheme}://{parts.netloc}")
