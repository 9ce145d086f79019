"""The orchestrator-agnostic core: the only code that speaks Druid HTTP. No Airflow or Dagster imports.

``DruidClient`` (requests) and ``AsyncDruidClient`` (aiohttp) share one request/response model
(``http``), one error taxonomy (``errors``), one retry policy (``retry``/``exchange``) and one set of
operations (``endpoints``/``operations``). The async client is imported lazily so that importing the
core (as DAG files do, through the operators) never pulls in aiohttp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import ClusterConfig, Secret
from .errors import *  # noqa: F403
from .models import HandoffResult, HandoffTarget, SubmitOutcome, TaskStatus
from .retry import PollSchedule, RetryPolicy

if TYPE_CHECKING:
    from .async_client import AsyncDruidClient
    from .sync_client import DruidClient


def __getattr__(name: str) -> Any:
    if name == "DruidClient":
        from .sync_client import DruidClient

        return DruidClient
    if name == "AsyncDruidClient":
        from .async_client import AsyncDruidClient

        return AsyncDruidClient
    raise AttributeError(name)


__all__ = [
    "AsyncDruidClient",
    "ClusterConfig",
    "DruidClient",
    "HandoffResult",
    "HandoffTarget",
    "PollSchedule",
    "RetryPolicy",
    "Secret",
    "SubmitOutcome",
    "TaskStatus",
]
