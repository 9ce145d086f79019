"""The orchestrator-agnostic core: the only code that speaks Druid HTTP. No Airflow or Dagster imports.

``DruidClient`` (requests) and ``AsyncDruidClient`` (aiohttp) share one request/response model (``http``), one
error taxonomy (``errors``), one retry policy (``retry``/``exchange``), one set of operations
(``endpoints``/``operations``/``waits``) and one plan (``plan``). The clients are imported lazily so that
importing the core (as DAG files do, through the operators) pulls in neither requests nor aiohttp: every public
name here resolves on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .async_client import AsyncDruidClient
    from .config import ClusterConfig, Secret
    from .errors import (
        DruidAuthError,
        DruidError,
        DruidFatalError,
        DruidRetriesExhaustedError,
        DruidTaskFailedError,
        DruidTransientError,
        DruidUsageError,
        DruidValidationError,
        DruidWaitTimeoutError,
        DuplicateTaskIdError,
        HandoffNeverError,
        SpecValidationError,
        UnknownTaskError,
    )
    from .models import HandoffResult, HandoffTarget, IngestResult, SubmitOutcome, TaskStatus
    from .msq import MsqPlan, build_msq_plan
    from .outcomes import HandoffOutcome, IngestionOutcome, TaskOutcome
    from .plan import IngestionPlan, build_plan
    from .retry import PollSchedule, RetryPolicy
    from .sync_client import DruidClient

#: where each public name lives; resolved on first use so that importing one submodule (as DAG files do,
#: through the operators) does not import the clients, requests, aiohttp or the spec validator
_WHERE = {
    "AsyncDruidClient": "async_client",
    "DruidClient": "sync_client",
    "ClusterConfig": "config",
    "Secret": "config",
    "HandoffResult": "models",
    "HandoffTarget": "models",
    "IngestResult": "models",
    "SubmitOutcome": "models",
    "TaskStatus": "models",
    "HandoffOutcome": "outcomes",
    "IngestionOutcome": "outcomes",
    "TaskOutcome": "outcomes",
    "IngestionPlan": "plan",
    "build_plan": "plan",
    "MsqPlan": "msq",
    "build_msq_plan": "msq",
    "PollSchedule": "retry",
    "RetryPolicy": "retry",
}


def __getattr__(name: str) -> Any:
    import importlib

    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    if name.startswith(("Druid", "Duplicate", "Handoff", "Spec", "Unknown")):
        errors = importlib.import_module(f"{__name__}.errors")
        if hasattr(errors, name):
            return getattr(errors, name)
    raise AttributeError(name)


__all__ = [
    "AsyncDruidClient",
    "ClusterConfig",
    "DruidAuthError",
    "DruidClient",
    "DruidError",
    "DruidFatalError",
    "DruidRetriesExhaustedError",
    "DruidTaskFailedError",
    "DruidTransientError",
    "DruidUsageError",
    "DruidValidationError",
    "DruidWaitTimeoutError",
    "DuplicateTaskIdError",
    "HandoffNeverError",
    "HandoffOutcome",
    "HandoffResult",
    "HandoffTarget",
    "IngestResult",
    "IngestionOutcome",
    "IngestionPlan",
    "MsqPlan",
    "PollSchedule",
    "RetryPolicy",
    "Secret",
    "SpecValidationError",
    "SubmitOutcome",
    "TaskOutcome",
    "TaskStatus",
    "UnknownTaskError",
    "build_msq_plan",
    "build_plan",
]
