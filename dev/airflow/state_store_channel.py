"""The supervisor's side of Airflow's asset-state-store messages, in-process: one dict per asset name.

A trigger running outside a triggerer (a test, a benchmark) reaches the asset state store through
``airflow.sdk.execution_time.task_runner.SUPERVISOR_COMMS``; set it to a ``StateStoreChannel`` and a store
kept across "triggerer restarts" is one object. Shared by tests/airflow/triggers/test_served_trigger.py and
benchmarks/p7_watch.py.
"""

from __future__ import annotations

import json
from typing import Any

from airflow.sdk.api.datamodels._generated import AssetStateStoreResponse
from airflow.sdk.exceptions import ErrorType
from airflow.sdk.execution_time.comms import (
    AssetStateStoreResult,
    ErrorResponse,
    GetAssetStateStoreByName,
    OKResponse,
    SetAssetStateStoreByName,
)

__all__ = ["StateStoreChannel"]


class StateStoreChannel:
    """Answers the get/set messages an ``AssetStateStoreAccessor`` sends, as the supervisor would."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], Any] = {}
        self.sets = 0

    async def asend(self, msg: Any) -> Any:
        if isinstance(msg, GetAssetStateStoreByName):
            if (msg.name, msg.key) not in self.values:
                return ErrorResponse(error=ErrorType.ASSET_STORE_NOT_FOUND)
            value = json.loads(json.dumps(self.values[(msg.name, msg.key)]))  # what the database gives back
            return AssetStateStoreResult.from_asset_state_store_response(AssetStateStoreResponse(value=value))
        if isinstance(msg, SetAssetStateStoreByName):
            self.values[(msg.name, msg.key)] = msg.value
            self.sets += 1
            return OKResponse(ok=True)
        raise AssertionError(f"unexpected message {msg!r}")
