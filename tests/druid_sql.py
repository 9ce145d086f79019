"""Druid SQL the real-Druid suites share: the generator's three numbers of one day, read back (written once)."""

from __future__ import annotations

from typing import Any

DAY_COUNTS = ('SELECT COUNT(*) AS "rollup_rows", SUM("rows") AS "rows", SUM("bytes") AS "sum_resp_bytes" '
              "FROM \"{datasource}\" WHERE __time >= ? AND __time < ? + INTERVAL '1' DAY")


def day_counts(client: Any, datasource: str, day: str) -> dict[str, Any]:
    """Rollup rows, raw rows and bytes of ``day`` (``YYYY-MM-DD``) in ``datasource``, through ``client.sql``."""
    start = {"type": "TIMESTAMP", "value": f"{day} 00:00:00"}
    rows = client.sql(DAY_COUNTS.format(datasource=datasource), [start, start])
    return dict(rows[0]) if rows else {}
