"""druid-ingest: drive Apache Druid batch ingestion from any orchestrator or script.

The core library: the only code that speaks Druid HTTP, with no Airflow or Dagster in it. Its rooms, each a
subpackage whose ``__init__`` is its public face:

- ``druid_ingest.wire``: the HTTP call model, the exchange loop, retry, cluster config, the error taxonomy;
- ``druid_ingest.planning``: the plan, spec pre-flight, task ids, MSQ statements, lineage;
- ``druid_ingest.api``: Druid's endpoints (request builders and answer parsers), models, report parsers;
- ``druid_ingest.ops``: operations and waits (sans-I/O generators), outcomes, schedules, history, capacity;
- ``druid_ingest.clients``: ``DruidClient`` (requests) and ``AsyncDruidClient`` (aiohttp), one typed surface.

Plus ``druid_ingest.testing`` (a fake Druid over real HTTP, and its pytest plugin) and the ``druid-ingest`` CLI.
The names below are the common ones; every name resolves on first use, so importing this package pulls in
neither requests nor aiohttp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import HandoffResult, HandoffTarget, TaskStatus
    from .clients import AsyncDruidClient, DruidClient
    from .ops import HandoffOutcome, IngestionOutcome, IngestResult, SubmitOutcome, TaskOutcome
    from .planning import IngestionPlan, MsqPlan, build_msq_plan, build_plan
    from .wire import (
        ClusterConfig,
        DruidAuthError,
        DruidError,
        DruidFatalError,
        DruidNothingToCompactError,
        DruidRetriesExhaustedError,
        DruidTaskFailedError,
        DruidTransientError,
        DruidUsageError,
        DruidValidationError,
        DruidWaitTimeoutError,
        DuplicateTaskIdError,
        HandoffNeverError,
        PollSchedule,
        RetryPolicy,
        Secret,
        SpecValidationError,
        UnknownTaskError,
    )

#: the room of each public name
_WHERE = {
    "AsyncDruidClient": "clients",
    "ClusterConfig": "wire",
    "DruidAuthError": "errors",
    "DruidClient": "clients",
    "DruidError": "errors",
    "DruidFatalError": "errors",
    "DruidNothingToCompactError": "errors",
    "DruidRetriesExhaustedError": "errors",
    "DruidTaskFailedError": "errors",
    "DruidTransientError": "errors",
    "DruidUsageError": "errors",
    "DruidValidationError": "errors",
    "DruidWaitTimeoutError": "errors",
    "DuplicateTaskIdError": "errors",
    "HandoffNeverError": "errors",
    "HandoffOutcome": "ops",
    "HandoffResult": "api",
    "HandoffTarget": "api",
    "IngestResult": "ops",
    "IngestionOutcome": "ops",
    "IngestionPlan": "planning",
    "MsqPlan": "planning",
    "PollSchedule": "ops",
    "RetryPolicy": "wire",
    "Secret": "wire",
    "SpecValidationError": "errors",
    "SubmitOutcome": "ops",
    "TaskOutcome": "ops",
    "TaskStatus": "api",
    "UnknownTaskError": "errors",
    "build_msq_plan": "planning",
    "build_plan": "planning",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "AsyncDruidClient",
    "ClusterConfig",
    "DruidAuthError",
    "DruidClient",
    "DruidError",
    "DruidFatalError",
    "DruidNothingToCompactError",
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
