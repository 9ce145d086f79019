"""Deployment-wide defaults of the Druid operators and sensors, and the one way trigger arguments are built."""

from __future__ import annotations

import time
from typing import Any

from druid_ingest.wire import PollSchedule, RetryPolicy

__all__ = ["DEFER_GRACE", "default_deferrable", "wait_kwargs"]

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
    """The connection, absolute deadline, poll schedule and retry policy every Druid trigger takes (primitives)."""
    return {
        "conn_id": conn_id,
        "end_time": time.time() + wait_seconds,
        "poll_interval": schedule.initial,
        "max_poll_interval": schedule.max_delay,
        "poll_multiplier": schedule.multiplier,
        "retry": retry.to_dict() if retry is not None else None,
    }
