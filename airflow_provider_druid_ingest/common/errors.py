"""The provider's two exception classes, for the failures Airflow must not retry.

Everything else a task raises is the core's own error (``druid_ingest.wire``): Airflow hands any exception that is
not an ``AirflowFailException`` or ``AirflowSensorTimeout`` to the task's retry logic and to Airflow 3.3's
``retry_policy``, whose ``RetryRule`` matches by ``isinstance`` on the raised exception (no ``__cause__`` walk),
so a rule keyed on ``DruidLeaderUnavailableError`` matches the error itself. A failure no retry can fix (a 401, a
FAILED task seen by a sensor, an empty publish, an invalid spec) is a :class:`DruidFatalFailure`, which Airflow
fails at once without asking a policy; a sensor's deadline is a :class:`DruidSensorTimeout`. Both keep the core
error as ``error`` and as ``__cause__``.
"""

from __future__ import annotations

from typing import Any

from airflow.sdk.exceptions import AirflowFailException, AirflowSensorTimeout

__all__ = ["DruidFatalFailure", "DruidSensorTimeout"]


class DruidFatalFailure(AirflowFailException):
    """A Druid failure that waiting or retrying cannot fix; ``error`` is the core error it stands for."""

    def __init__(self, message: str, error: BaseException | None = None) -> None:
        super().__init__(message)
        self.error = error

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (str(self), self.error)


class DruidSensorTimeout(AirflowSensorTimeout):
    """A sensor's wait for Druid outlasted its timeout; ``error`` is the core's ``DruidWaitTimeoutError``."""

    def __init__(self, message: str, error: BaseException | None = None) -> None:
        super().__init__(message)
        self.error = error

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (str(self), self.error)
