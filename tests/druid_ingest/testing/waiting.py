"""Polling helper shared by the fake's own tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(cond: Callable[[], Any], timeout: float = 5.0) -> Any:
    """Return ``cond()``'s first truthy value, or fail after ``timeout`` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not met in time")
