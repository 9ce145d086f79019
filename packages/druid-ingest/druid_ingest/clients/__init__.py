"""The clients: the typed surface (``facade``), the sync driver (requests), the async driver (aiohttp) and the
shared poller that batches the async waits of one event loop.

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from ._async_client import AsyncDruidClient, shared_client
    from ._sync_client import DruidClient

#: where each public name lives
_WHERE = {
    "AsyncDruidClient": "_async_client",
    "DruidClient": "_sync_client",
    "shared_client": "_async_client",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "AsyncDruidClient",
    "DruidClient",
    "shared_client",
]
