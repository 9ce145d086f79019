"""The clients: the typed surface (``facade``), the sync driver (requests), the async driver (aiohttp) and the
shared poller that batches the async waits of one event loop, and a DB-API 2 connection over the sync driver's
Druid SQL (``connect``).

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from ._async_client import AsyncDruidClient, shared_client
    from ._dbapi import DbApiConnection, DbApiCursor, connect, druid_parameters
    from ._sync_client import DruidClient

#: where each public name lives
_WHERE = {
    "AsyncDruidClient": "_async_client",
    "DbApiConnection": "_dbapi",
    "DbApiCursor": "_dbapi",
    "DruidClient": "_sync_client",
    "connect": "_dbapi",
    "druid_parameters": "_dbapi",
    "shared_client": "_async_client",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "AsyncDruidClient",
    "DbApiConnection",
    "DbApiCursor",
    "DruidClient",
    "connect",
    "druid_parameters",
    "shared_client",
]
