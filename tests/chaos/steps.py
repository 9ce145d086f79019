"""Run one Airflow task the way Airflow would: execute, on TaskDeferred serialize the trigger, rebuild it as a
triggerer does and run it on a fresh event loop, resume a fresh operator with the event; on a retryable failure
run the next try (``try_number`` + 1) with a fresh operator and XCom, on ``AirflowFailException`` stop."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from airflow.sdk.exceptions import AirflowException, AirflowFailException, AirflowSensorTimeout, TaskDeferred
from druid_ingest.errors import DruidError

__all__ = ["TI", "Outcome", "run_task"]


class TI:
    """The slice of a task instance our operators use (XCom), with the try number."""

    def __init__(self, task_id: str, try_number: int) -> None:
        self.task_id = task_id
        self.try_number = try_number
        self.xcom: dict[str, Any] = {}

    def xcom_push(self, key: str, value: Any) -> None:
        self.xcom[key] = value

    def xcom_pull(self, task_ids: str | None = None, key: str = "return_value") -> Any:
        return self.xcom.get(key)


@dataclass
class Outcome:
    """How one Airflow task ended: its value, or the error that failed it for good; every text it produced."""

    value: Any = None
    error: BaseException | None = None
    failed_fast: bool = False  # AirflowFailException: Airflow would not retry
    tries: int = 0
    texts: list[str] = field(default_factory=list)  # exceptions, XCom, serialized triggers, events
    unexpected: list[str] = field(default_factory=list)  # exceptions that are not Airflow's: a package bug
    try_errors: list[str] = field(default_factory=list)  # the error of each failed try, in order


def _resume(make: Callable[[], Any], deferred: TaskDeferred, context: dict[str, Any], texts: list[str]) -> Any:
    classpath, kwargs = deferred.trigger.serialize()
    texts.append(repr((classpath, kwargs)))
    module, _, name = classpath.rpartition(".")
    trigger = getattr(import_module(module), name)(**kwargs)  # what the triggerer does after a restart, too

    async def first() -> Any:
        return (await trigger.run().__anext__()).payload

    event = asyncio.run(first())
    texts.append(repr(event))
    return getattr(make(), deferred.method_name)(context, event)


def run_task(task_id: str, make: Callable[[], Any], context: dict[str, Any], retries: int = 3) -> Outcome:
    """Execute ``make()``'s operator with up to ``retries`` Airflow retries."""
    out = Outcome()
    for try_number in range(1, retries + 2):
        out.tries = try_number
        ti = TI(task_id, try_number)
        ctx = {**context, "ti": ti, "task_instance": ti}
        try:
            try:
                out.value = make().execute(ctx)
            except TaskDeferred as deferred:
                out.value = _resume(make, deferred, ctx, out.texts)
            out.error = None
            out.texts.append(repr(ti.xcom))
            return out
        except (AirflowFailException, AirflowSensorTimeout) as exc:
            out.error, out.failed_fast = exc, isinstance(exc, AirflowFailException)
        except (AirflowException, DruidError) as exc:  # a retryable failure is raised as the core error itself
            out.error = exc
        except Exception as exc:  # not an Airflow failure: counted, and treated as a retryable crash
            out.error = exc
            out.unexpected.append("".join(traceback.format_exception(exc)))
        out.try_errors.append(str(out.error))
        out.texts.append(repr(ti.xcom))
        out.texts.append("".join(traceback.format_exception(out.error)))
        if out.failed_fast:
            return out
    return out
