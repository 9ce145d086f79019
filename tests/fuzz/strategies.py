"""Druid-wide building blocks: instants, intervals, versions, status codes, and how a body goes wrong on the wire
(cut short, junk appended, a proxy's HTML page, empty, random bytes) under any status and content type."""

from __future__ import annotations

import json
from typing import Any

from druid_ingest.wire._http import Response

from .gen import G, integers, one_of, sampled, text, tuples

__all__ = ["body_bytes", "instants", "intervals", "response", "status_codes", "versions"]

REAL_INSTANTS = [
    "2026-07-16T00:00:00.000Z", "2026-07-17T00:00:00.000Z", "2026-07-16T12:34:56.789Z", "2024-01-01",
    "2026-07-16T00:00:00Z", "2026-07-16T01", "1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
    "0001-01-01T00:00:00.000Z", "2026-07-16T00:00:00.000+05:30",
]
_BAD_INSTANTS = ["2026-13-01", "2026-02-30T00:00:00Z", "", "Z", "T", "2026-07-16T25", "P1D", "-0001-01-01"]
instants = one_of(sampled(REAL_INSTANTS), sampled(REAL_INSTANTS), sampled(_BAD_INSTANTS), text(25))
_PERIODS = ["P1D", "PT1H", "P1M", "P1W", "P99999999Y", "P9999999999D", "PT" + "9" * 400 + "S", "P", "PT"]
intervals = one_of(
    tuples(sampled(REAL_INSTANTS), sampled(REAL_INSTANTS)).map("/".join),
    tuples(sampled(REAL_INSTANTS), sampled(REAL_INSTANTS)).map("/".join),
    tuples(instants, instants).map("/".join),
    tuples(sampled(REAL_INSTANTS), sampled(_PERIODS)).map("/".join),
    tuples(sampled(_PERIODS), sampled(REAL_INSTANTS)).map("/".join),
    text(30),
)
versions = one_of(instants, text(10))
status_codes = one_of(
    sampled([200, 200, 200, 200, 200, 201, 202, 204, 301, 302, 307, 308, 400, 401, 403, 404, 405, 409, 415, 429,
             500, 502, 503, 504]),
    integers(100, 599),
)
_HTML = sampled([
    b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>",
    b"<!DOCTYPE html><html><title>Error</title><pre>java.lang.NullPointerException</pre></html>",
    b"<html><title>unclosed", b"<HTML><TITLE>" + b"x" * 3000 + b"</TITLE></HTML>", b"<title>" * 500,
])


def _bytes(r: Any) -> bytes:
    return bytes(r.randrange(256) for _ in range(r.randint(0, 40)))


def body_bytes(value: G) -> G:
    """Mostly ``value`` as JSON; sometimes cut short, padded with junk, an HTML page, empty, or random bytes."""
    def draw(r: Any) -> bytes:
        roll = r.random()
        if roll < 0.08:
            return _HTML(r)
        if roll < 0.12:
            return r.choice([b"", b"   \n", b"null", b"true"])
        if roll < 0.15:
            return _bytes(r)
        encoded = json.dumps(value(r), allow_nan=True).encode("utf-8", "surrogatepass")
        if roll < 0.22:
            return encoded[: r.randint(0, len(encoded))]
        if roll < 0.25:
            return encoded + _bytes(r)
        return encoded
    return G(draw)


_CTYPES = sampled(["application/json", "application/json", "application/json;charset=utf-8", "text/html",
                   "text/plain", "text/html;charset=iso-8859-1", ""])


def response(value: G, status: G | None = None, method: str = "GET") -> G:
    """A response for a parser: a Druid-shaped body (``value``) under any status and content type."""
    body, codes = body_bytes(value), status or status_codes

    def draw(r: Any) -> Response:
        ctype = _CTYPES(r)
        return Response(codes(r), body(r), {"Content-Type": ctype} if ctype else {}, "http://druid.example:8888/x",
                        method)
    return G(draw)
