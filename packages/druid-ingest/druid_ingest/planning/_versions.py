"""Druid release numbers as ``GET /status`` reports them (``"33.0.0"``, ``"0.23.0"``, ``"34.0.0-SNAPSHOT"``).

The client picks a version-dependent API by them (the segment write APIs moved to the Overlord in Druid 32), and
the fake Druid's version profile reads them the same way, so both agree on what a version string means.
"""

from __future__ import annotations

import re

__all__ = ["druid_release"]

#: major.minor.patch at the start; a suffix (``-SNAPSHOT``, ``-rc1``, ``-iap``) is a build of that release
_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:[-+.].*)?")


def druid_release(version: object) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` of a Druid version, or None when it is not one: Druid always reports three
    numbers, so ``""``, ``"33"`` or ``None`` mean "unknown" and the caller falls back to the newest API."""
    if not isinstance(version, str):
        return None
    found = _RELEASE.fullmatch(version.strip())
    if found is None:
        return None
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch
