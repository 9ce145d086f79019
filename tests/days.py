"""Day helpers the suites share."""

from __future__ import annotations

import datetime as dt


def day_interval(day: str) -> str:
    """The ISO interval of one UTC day: ``2026-11-03`` -> ``2026-11-03T00:00:00Z/2026-11-04T00:00:00Z``."""
    end = dt.date.fromisoformat(day) + dt.timedelta(days=1)
    return f"{day}T00:00:00Z/{end.isoformat()}T00:00:00Z"
