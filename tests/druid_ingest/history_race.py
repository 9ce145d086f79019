"""An operation driven as it is, with a run seen succeeding once its first request is out: a history read under
way across a SUCCESS this process saw (``HistoryCache.ran``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from druid_ingest.ops._history import HistoryCache


def success_after_send(inner: Generator[Any, Any, Any], cache: HistoryCache,
                       key: tuple[str, str, str]) -> Generator[Any, Any, Any]:
    step = next(inner)
    cache.ran(key)
    while True:
        answer = yield step
        try:
            step = inner.send(answer)
        except StopIteration as stop:
            return stop.value
