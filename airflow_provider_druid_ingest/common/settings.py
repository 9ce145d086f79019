"""Deployment-wide defaults of the Druid operators and sensors, and the one way trigger arguments are built."""

from __future__ import annotations

import time
from typing import Any

from druid_ingest.ops import PollSchedule
from druid_ingest.wire import RetryPolicy

__all__ = ["DEFER_GRACE", "default_deferrable", "http_retry_arg", "wait_kwargs"]

#: Airflow's own defer timeout fires this long after our trigger's deadline, so the trigger's timeout event
#: (which names what it was waiting for) normally wins over Airflow's bare TaskDeferralTimeout.
DEFER_GRACE = 120.0


def default_deferrable() -> bool:
    """True unless ``[druid_ingest] default_deferrable`` (``AIRFLOW__DRUID_INGEST__DEFAULT_DEFERRABLE``) says no.

    Not ``conf.getboolean("operators", "default_deferrable", fallback=True)``: that option exists with default
    ``false`` (and ``airflow db migrate`` writes ``default_deferrable = false`` into airflow.cfg), so the fallback
    never applies and the result is False on a stock deployment. A Druid wait lasts minutes to hours, so these
    operators defer by default; our own option turns that off deployment-wide.
    """
    from airflow.sdk import conf

    return conf.getboolean("druid_ingest", "default_deferrable", fallback=True)


def wait_kwargs(
    conn_id: str, wait_seconds: float, schedule: PollSchedule, retry: RetryPolicy | None
) -> dict[str, Any]:
    """The connection, absolute deadline, poll schedule (with its detection target) and retry policy every Druid
    trigger takes (primitives)."""
    return {
        "conn_id": conn_id,
        "end_time": time.time() + wait_seconds,
        "poll_interval": schedule.initial,
        "max_poll_interval": schedule.max_delay,
        "poll_multiplier": schedule.multiplier,
        "detect_within": schedule.detect_within,
        "check_every": schedule.check_every,
        "retry": retry.to_dict() if retry is not None else None,
    }


def http_retry_arg(owner: str, http_retry: object, kwargs: dict[str, Any]) -> RetryPolicy | None:
    """The per-HTTP-call policy of ``owner`` (``http_retry=``), kept apart from Airflow 3.3's ``retry_policy=``
    (task retries): each policy passed to the other's parameter fails here, at parse time, naming the right one."""
    if isinstance(kwargs.get("retry_policy"), RetryPolicy):
        raise TypeError(f"{owner}: retry_policy={kwargs['retry_policy']!r} is a druid_ingest RetryPolicy (one "
                        "HTTP call's retries): pass it as http_retry=; retry_policy= takes Airflow's "
                        "airflow.sdk.RetryPolicy")
    if http_retry is None or isinstance(http_retry, RetryPolicy):
        return http_retry
    kind = f"{type(http_retry).__module__}.{type(http_retry).__name__}"
    raise TypeError(f"{owner}: http_retry={type(http_retry).__name__} ({kind}): expected a druid_ingest "
                    "RetryPolicy (retries of each HTTP call); for Airflow's airflow.sdk.RetryPolicy (task "
                    "retries) pass retry_policy=")
