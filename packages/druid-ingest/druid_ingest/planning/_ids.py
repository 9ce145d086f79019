"""Deterministic, Druid-valid task ids: the same work always gets the same id, on any machine.

``base_task_id`` hashes the canonical JSON of the rendered spec (its own ``id`` removed) together with
the datasource, the intervals and an optional user key. Intervals count by their instants, not their spelling:
``2026-10-05/2026-10-06``, ``...T00:00:00Z`` and ``...T02:00:00+02:00`` are the same day, so the id's interval part
and the hashed copy of ``granularitySpec.intervals`` use Druid's own form (:func:`canonical_interval`); otherwise
a re-run that spells its day differently would submit again (a second ingestion when it appends).
Attempt 0 uses the base id; after a FAILED attempt the next one is ``<base>_r<n>``. To force re-ingestion of an
interval whose spec did not change (upstream data was corrected), pass a new ``key``
(e.g. ``"fix-2026-11-29"``): it changes the hash.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from datetime import datetime, timezone
from typing import Any

from druid_ingest.planning.spec.intervals import parse_interval

__all__ = [
    "HASH_CHARS",
    "ID_RULES",
    "MAX_ID_LENGTH",
    "attempt_id",
    "base_task_id",
    "canonical_interval",
    "canonical_json",
    "druid_id_problem",
    "invalid_task_id_reason",
    "sanitize",
    "spec_fingerprint",
    "split_attempt",
]

MAX_ID_LENGTH = 200
_SAFE = re.compile(r"[^A-Za-z0-9._:-]+")
_ATTEMPT = re.compile(r"^(?P<base>.+)_r(?P<n>[0-9]+)$")
HASH_CHARS = 16


def canonical_json(value: Any) -> str:
    """Key-sorted, whitespace-free JSON: equal specs give equal bytes regardless of dict order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _druid_instant(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def canonical_interval(text: str) -> str:
    """``text`` in Druid's own form, UTC with milliseconds (``2026-10-05T00:00:00.000Z/2026-10-06T00:00:00.000Z``);
    text that does not parse is returned as is (pre-flight refuses it, this only names work)."""
    try:
        start, end = parse_interval(text)
    except (ValueError, TypeError):
        return text
    return f"{_druid_instant(start)}/{_druid_instant(end)}"


def _canonical_intervals(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``spec`` (task shape or bare) with ``granularitySpec.intervals`` canonical, for hashing only:
    the spec sent to Druid keeps the user's spelling."""
    wrapped = spec.get("spec")
    body: dict[str, Any] = wrapped if isinstance(wrapped, dict) else spec
    schema = body.get("dataSchema")
    granularity = schema.get("granularitySpec") if isinstance(schema, dict) else None
    intervals = granularity.get("intervals") if isinstance(granularity, dict) else None
    if not isinstance(intervals, list):
        return spec
    canonical = [canonical_interval(i) if isinstance(i, str) else i for i in intervals]
    if canonical == intervals:
        return spec
    out = copy.deepcopy(spec)
    target = out["spec"] if body is not spec else out
    target["dataSchema"]["granularitySpec"]["intervals"] = canonical
    return out


def spec_fingerprint(spec: dict[str, Any], key: str | None = None) -> str:
    """SHA-256 of the spec content (without its ``id``, intervals in :func:`canonical_interval` form) and the
    user key."""
    body = {k: v for k, v in _canonical_intervals(spec).items() if k != "id"}
    digest = hashlib.sha256(canonical_json(body).encode())
    if key:
        digest.update(b"\x00key\x00" + key.encode())
    return digest.hexdigest()


def _compact_interval(interval: str) -> str:
    """``2026-11-01T00:00:00Z/2026-11-02T00:00:00.000Z`` -> ``20261101-20261102`` (times kept if not midnight)."""
    parts = []
    for end in interval.split("/")[:2]:
        text = re.sub(r"[-:]", "", end).replace(".000", "").rstrip("Z")
        text = re.sub(r"T0*$", "", re.sub(r"T(000000|0000|00)$", "", text))
        parts.append(_SAFE.sub("", text))
    return "-".join(parts)


def sanitize(text: str) -> str:
    """Keep ``[A-Za-z0-9._:-]``; everything else becomes ``_`` (no ``/``, whitespace or control chars)."""
    return _SAFE.sub("_", text).strip("_") or "x"


def base_task_id(
    spec: dict[str, Any],
    datasource: str,
    intervals: list[str],
    key: str | None = None,
    prefix: str = "ingest",
) -> str:
    """``<prefix>_<datasource>_<interval span>_<hash16>``, at most 190 chars (room for ``_r<n>``); the intervals
    are read as instants (:func:`canonical_interval`)."""
    fingerprint = spec_fingerprint(spec, key)[:HASH_CHARS]
    intervals = [canonical_interval(text) for text in intervals]
    span = ""
    if intervals:
        first, last = _compact_interval(intervals[0]), _compact_interval(intervals[-1])
        span = first if len(intervals) == 1 else f"{first.split('-')[0]}-{last.split('-')[-1]}"
    head = sanitize(prefix)
    ds = sanitize(datasource)
    budget = MAX_ID_LENGTH - 10 - len(head) - len(span) - len(fingerprint) - 3
    ds = ds[: max(8, budget)]
    parts = [head, ds, span, fingerprint] if span else [head, ds, fingerprint]
    task_id = "_".join(parts)
    return task_id.lstrip(".")[: MAX_ID_LENGTH - 10]


def attempt_id(base: str, attempt: int) -> str:
    return base if attempt == 0 else f"{base}_r{attempt}"


def split_attempt(task_id: str) -> tuple[str, int]:
    """Inverse of :func:`attempt_id`."""
    match = _ATTEMPT.match(task_id)
    if match:
        return match.group("base"), int(match.group("n"))
    return task_id, 0


#: Java's ``\s`` (Druid checks ``[^\S ]``): Python's ``isspace`` is wider (U+001C-U+001F, U+00A0, ...)
_JAVA_WHITESPACE = frozenset("\t\n\x0b\f\r")
#: Druid's id rules in words, for messages (task ids and datasource names follow the same ones)
ID_RULES = "a non-empty string without '/', not starting with '.', no whitespace other than plain spaces"


def druid_id_problem(value: Any) -> str | None:
    """Why Druid's ``IdUtils.validateId`` would reject ``value`` (a task id or datasource name), or None.

    The one validator of the package (druid-contract §submit). Druid's character ranges are open intervals, so
    U+001F, U+009F, U+F8FF, U+FFF0 and U+FFFF pass; a character beyond U+FFFF is a surrogate pair in Java and is
    rejected. A lone surrogate (U+D800-U+DFFF) passes Druid's check but cannot be sent as UTF-8 JSON at all.
    """
    if not isinstance(value, str) or not value:
        return "must be a non-empty string"
    if value.startswith("."):
        return "must not start with '.'"
    if "/" in value:
        return "must not contain '/'"
    for pos, char in enumerate(value):
        code = ord(char)
        if char in _JAVA_WHITESPACE:
            return f"contains whitespace {char!r} at position {pos}; only a plain space is allowed"
        if 0xD800 <= code <= 0xDFFF:
            return f"contains a lone surrogate U+{code:04X} at position {pos}, which cannot be encoded as UTF-8"
        if 0 < code < 0x1F or 0x7F < code < 0x9F or 0xD800 < code < 0xF8FF or 0xFFF0 < code < 0xFFFF or code > 0xFFFF:
            return f"contains illegal character U+{code:04X} at position {pos}"
    return None


def invalid_task_id_reason(task_id: str) -> str | None:
    """Druid's id rules (:func:`druid_id_problem`) plus our length cap; None when valid."""
    reason = druid_id_problem(task_id)
    if reason is None and len(task_id) > MAX_ID_LENGTH:
        return f"must be at most {MAX_ID_LENGTH} characters (Druid stores ids in VARCHAR(255) and file names)"
    return reason
