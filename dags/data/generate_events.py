#!/usr/bin/env python3
"""Deterministic sample web events for the ``events_web`` Druid datasource.

Writes one JSON-lines file per day, ``<out>/<YYYY-MM-DD>/events.json``, so an ingestion can point
``inputSource.baseDir`` at a single day's folder.  Each row::

    {"event_ts": "2026-11-01T00:03:17.412Z", "country": "DE", "device": "mobile",
     "page_id": 7, "resp_bytes": 5120}

The data only depends on ``--seed`` and the day (each day has its own RNG), so a day's file is
identical whatever ``--start``/``--days`` range it is generated in.  Stdlib only.

``--expect`` prints (and writes nothing) the numbers an ingestion with the spec in
``dags/specs/events_web.json`` must produce for each day::

    {"2026-11-01": {"rows": 2000, "rollup_rows": 1712, "sum_resp_bytes": 123456789}, ...}

* ``rows``: raw input rows = ``SUM("rows")`` in Druid (the ``count`` metric);
* ``rollup_rows``: distinct (minute, country, device, page_id) tuples = ``COUNT(*)`` in Druid with
  queryGranularity MINUTE and perfect rollup;
* ``sum_resp_bytes``: ``SUM("bytes")`` in Druid.

Usage::

    python dags/data/generate_events.py                     # 2026-11-01..05 into var/events
    python dags/data/generate_events.py --out /tmp/ev --days 2
    python dags/data/generate_events.py --expect
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO_ROOT / "var" / "events"
DEFAULT_START = "2026-11-01"
DEFAULT_DAYS = 5
DEFAULT_ROWS_PER_DAY = 2000
DEFAULT_SEED = 20261101

COUNTRIES = ("US", "DE", "FR", "IN", "BR", "JP")
COUNTRY_WEIGHTS = (40, 15, 10, 20, 10, 5)
DEVICES = ("desktop", "mobile", "tablet")
DEVICE_WEIGHTS = (45, 45, 10)
PAGES = tuple(range(1, 21))
PAGE_WEIGHTS = tuple(1.0 / p for p in PAGES)  # Zipf-like: a few hot pages
HOT_MINUTES_PER_DAY = 40  # bursts, so that minute rollup actually merges rows
HOT_SHARE = 0.8


def _day_rng(seed: int, day: dt.date) -> random.Random:
    return random.Random(f"{seed}:{day.isoformat()}")


def generate_day(day: dt.date, rows: int = DEFAULT_ROWS_PER_DAY, seed: int = DEFAULT_SEED) -> list[dict]:
    """Rows of one day, sorted by time; deterministic for (seed, day, rows)."""
    rng = _day_rng(seed, day)
    hot_minutes = rng.sample(range(24 * 60), HOT_MINUTES_PER_DAY)
    midnight = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
    events = []
    for _ in range(rows):
        minute = rng.choice(hot_minutes) if rng.random() < HOT_SHARE else rng.randrange(24 * 60)
        millis = rng.randrange(60_000)
        ts = midnight + dt.timedelta(minutes=minute, milliseconds=millis)
        events.append(
            {
                "event_ts": ts,
                "country": rng.choices(COUNTRIES, COUNTRY_WEIGHTS)[0],
                "device": rng.choices(DEVICES, DEVICE_WEIGHTS)[0],
                "page_id": rng.choices(PAGES, PAGE_WEIGHTS)[0],
                "resp_bytes": int(rng.lognormvariate(8.5, 1.0)) + 200,
            }
        )
    events.sort(key=lambda e: (e["event_ts"], e["country"], e["device"], e["page_id"]))
    for e in events:
        e["event_ts"] = e["event_ts"].strftime("%Y-%m-%dT%H:%M:%S.") + f"{e['event_ts'].microsecond // 1000:03d}Z"
    return events


def expected_for(events: list[dict]) -> dict:
    tuples = {(e["event_ts"][:16], e["country"], e["device"], e["page_id"]) for e in events}
    return {
        "rows": len(events),
        "rollup_rows": len(tuples),
        "sum_resp_bytes": sum(e["resp_bytes"] for e in events),
    }


def days_range(start: str, days: int) -> list[dt.date]:
    first = dt.date.fromisoformat(start)
    return [first + dt.timedelta(days=i) for i in range(days)]


def write_day(out: Path, day: dt.date, events: list[dict]) -> Path:
    folder = out / day.isoformat()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "events.json"
    tmp = path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for e in events:
            fh.write(json.dumps(e, separators=(",", ":")) + "\n")
    tmp.replace(path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="target dir (default: <repo>/var/events)")
    ap.add_argument("--start", default=DEFAULT_START, help="first day, YYYY-MM-DD (default %(default)s)")
    ap.add_argument("--days", type=int, default=DEFAULT_DAYS, help="number of days (default %(default)s)")
    ap.add_argument("--rows-per-day", type=int, default=DEFAULT_ROWS_PER_DAY)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--expect", action="store_true", help="print expected per-day counts as JSON, write nothing")
    args = ap.parse_args(argv)

    result = {}
    for day in days_range(args.start, args.days):
        events = generate_day(day, args.rows_per_day, args.seed)
        if args.expect:
            result[day.isoformat()] = expected_for(events)
        else:
            path = write_day(args.out, day, events)
            print(f"wrote {len(events)} rows to {path}", file=sys.stderr)
    if args.expect:
        json.dump(result, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
