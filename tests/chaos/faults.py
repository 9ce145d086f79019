"""The fault menu of the chaos run: every endpoint the package calls, every way it can fail.

Transient faults (5xx, proxy pages, 429, leaderless 503, resets, read timeouts, a leader move to another trusted
host) must be ridden out by the retry policy; fatal ones (401, 403, 404 Jetty pages, a 400 on submit, a redirect
to a host outside the connection) must fail the ingestion at once, without retries, unless the call is optional
(reports, locks, worker listing, bulk status: the package falls back or does without).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from druid_ingest.testing import Fault

__all__ = ["ENDPOINTS", "FATAL", "TRANSIENT", "Injected", "pick"]

#: (name, method, path regex): every endpoint a one-shot ingestion or the split form calls
ENDPOINTS: list[tuple[str, str, str]] = [
    ("submit", "POST", r"/druid/indexer/v1/task$"),
    ("status", "GET", r"/druid/indexer/v1/task/[^/]+/status$"),
    ("bulk_status", "POST", r"/druid/indexer/v1/taskStatus$"),
    ("reports", "GET", r"/druid/indexer/v1/task/[^/]+/reports$"),
    ("workers", "GET", r"/druid/indexer/v1/workers$"),
    ("active_locks", "POST", r"/druid/indexer/v1/activeLocks$"),
    ("task_list", "GET", r"/druid/indexer/v1/tasks$"),
    ("used_segments", "POST", r"/druid/coordinator/v1/metadata/datasources/[^/]+/segments$"),
    ("served", "GET", r"/druid/coordinator/v1/datasources/[^/]+/intervals/"),
    ("handoff_complete", "GET", r"/handoffComplete$"),
    ("broker", "GET", r"/druid/v2/datasources/[^/]+/candidates$"),
]

TRANSIENT = ["500", "502_html", "504_html", "leaderless", "queue_not_ready", "throttle", "reset", "timeout",
             "leader_move"]
FATAL = ["401", "403", "404", "redirect_untrusted", "400"]


@dataclass
class Injected:
    """One fault as injected: which endpoint, what kind, and the Fault the fake counts shots on."""

    endpoint: str
    kind: str
    fatal: bool
    fault: Fault


def _fault(kind: str, method: str, path: str, times: int, after: int, alias: str, untrusted: str) -> Fault:
    common = {"method": method, "path": path, "times": times, "after": after}
    if kind == "500":
        return Fault(kind="status", status=500, body="java.lang.RuntimeException: chaos", **common)
    if kind in ("502_html", "504_html"):
        return Fault(kind="html", status=int(kind[:3]), **common)
    if kind in ("leaderless", "queue_not_ready", "throttle", "reset"):
        return Fault(kind=kind, **common)
    if kind == "timeout":
        return Fault(kind="delay", delay=0.7, **common)  # the connection's read_timeout is 0.4 s
    if kind == "leader_move":
        return Fault(kind="redirect", redirect_to=alias, **common)
    if kind == "redirect_untrusted":
        return Fault(kind="redirect", redirect_to=untrusted, **common)
    if kind == "401":
        return Fault(kind="html", status=401, body="<html><title>Error 401 Unauthorized</title></html>", **common)
    if kind == "403":
        return Fault(kind="status", status=403, body='{"Access-Check-Result": "Unauthorized"}',
                     content_type="application/json", **common)
    if kind == "404":
        return Fault(kind="html", status=404, body="<html><title>Error 404 Not Found</title></html>", **common)
    if kind == "400":
        return Fault(kind="status", status=400, content_type="application/json", body=(
            '{"error": "druidException", "errorCode": "invalidInput", "persona": "USER", "category": '
            '"INVALID_INPUT", "errorMessage": "chaos: spec rejected", "context": {}}'), **common)
    raise ValueError(kind)


def pick(rng: random.Random, alias: str, untrusted: str) -> list[Injected]:
    """0-3 faults for one ingestion: mostly transient (1-3 shots, after 0-3 matching requests), a fatal one in
    about one ingestion of four (one shot: a second identical request would be a retry burned on it)."""
    out = []
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
        name, method, path = rng.choice(ENDPOINTS)
        fatal = rng.random() < 0.15
        kind = rng.choice(FATAL if fatal else TRANSIENT)
        if kind == "400" and name != "submit":
            kind = "404"
        times = 1 if fatal else rng.randint(1, 3)
        after = rng.randint(0, 1 if fatal else 3)
        out.append(Injected(name, kind, fatal, _fault(kind, method, path, times, after, alias, untrusted)))
    return out
