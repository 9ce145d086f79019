"""Errors that are two things at once: an exhausted retry or a timed-out wait, and the transient error it could
not get past (Airflow's ``RetryRule`` matches by ``isinstance``, so a rule on ``DruidLeaderUnavailableError`` must
match the retries that gave up on it). A fixed table of classes, not classes made on demand: pickle and a trigger
event's class names find each by its module name; :func:`error_from_names` rebuilds an event's error.
"""

from __future__ import annotations

from druid_ingest.errors._taxonomy import (
    DruidConnectionError,
    DruidError,
    DruidFatalError,
    DruidLeaderUnavailableError,
    DruidRetriesExhaustedError,
    DruidServerError,
    DruidThrottledError,
    DruidTimeoutError,
    DruidTransientError,
    DruidWaitTimeoutError,
    _rebuilt,
    taxonomy_class,
)

__all__ = ["error_from_names", "retries_exhausted"]


class RetriesExhaustedServerError(DruidRetriesExhaustedError, DruidServerError):
    """Retries gave up on 5xx answers."""


class RetriesExhaustedThrottledError(DruidRetriesExhaustedError, DruidThrottledError):
    """Retries gave up on 429 answers."""


class RetriesExhaustedLeaderUnavailableError(DruidRetriesExhaustedError, DruidLeaderUnavailableError):
    """Retries gave up on 503 answers (no leader)."""


class RetriesExhaustedConnectionError(DruidRetriesExhaustedError, DruidConnectionError):
    """Retries gave up on refused or reset connections."""


class RetriesExhaustedTimeoutError(DruidRetriesExhaustedError, DruidTimeoutError):
    """Retries gave up on timed-out calls."""


class WaitTimeoutServerError(DruidWaitTimeoutError, DruidServerError):
    """A wait's deadline passed while Druid answered 5xx."""


class WaitTimeoutThrottledError(DruidWaitTimeoutError, DruidThrottledError):
    """A wait's deadline passed while Druid answered 429."""


class WaitTimeoutLeaderUnavailableError(DruidWaitTimeoutError, DruidLeaderUnavailableError):
    """A wait's deadline passed while Druid had no leader (503)."""


class WaitTimeoutConnectionError(DruidWaitTimeoutError, DruidConnectionError):
    """A wait's deadline passed while connections were refused or reset."""


class WaitTimeoutTimeoutError(DruidWaitTimeoutError, DruidTimeoutError):
    """A wait's deadline passed while calls timed out."""


_EXHAUSTED: tuple[tuple[type[DruidTransientError], type[DruidRetriesExhaustedError]], ...] = (
    (DruidServerError, RetriesExhaustedServerError),
    (DruidThrottledError, RetriesExhaustedThrottledError),
    (DruidLeaderUnavailableError, RetriesExhaustedLeaderUnavailableError),
    (DruidConnectionError, RetriesExhaustedConnectionError),
    (DruidTimeoutError, RetriesExhaustedTimeoutError),
)
_TIMED_OUT: tuple[tuple[type[DruidTransientError], type[DruidWaitTimeoutError]], ...] = (
    (DruidServerError, WaitTimeoutServerError),
    (DruidThrottledError, WaitTimeoutThrottledError),
    (DruidLeaderUnavailableError, WaitTimeoutLeaderUnavailableError),
    (DruidConnectionError, WaitTimeoutConnectionError),
    (DruidTimeoutError, WaitTimeoutTimeoutError),
)




def retries_exhausted(last: DruidError, attempts: int, elapsed_s: float) -> DruidRetriesExhaustedError:
    """The exhausted-retries error of ``last``'s class (plain :class:`DruidRetriesExhaustedError` for an error
    outside the table)."""
    combined = next((c for base, c in _EXHAUSTED if isinstance(last, base)), DruidRetriesExhaustedError)
    return combined(last, attempts, elapsed_s)


def error_from_names(names: tuple[str, ...], message: str, *, fatal: bool = False) -> DruidError:
    """The error ``names`` stand for (as :func:`error_names` wrote them into a trigger event), with ``message``:
    how one side of an event raises the error the other side met. Its class is the first known name's, combined
    with the first transient one after it for an exhausted retry or a timed-out wait; with no known name (an
    event of another version) :class:`DruidFatalError` or :class:`DruidError` as ``fatal`` says."""
    classes = [c for c in map(taxonomy_class, names) if c is not None and issubclass(c, DruidError)]
    head: type[DruidError] = classes[0] if classes else DruidFatalError if fatal else DruidError
    table = _EXHAUSTED if head is DruidRetriesExhaustedError else _TIMED_OUT if head is DruidWaitTimeoutError else ()
    cls = next((c for base, c in table for later in classes[1:] if issubclass(later, base)), head)
    return _rebuilt(cls, message, {"message": message, "status": None, "method": None, "url": None, "body": None})
