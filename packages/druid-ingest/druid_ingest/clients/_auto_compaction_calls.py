"""``AutoCompactionCalls``: the pause and resume of a datasource's auto-compaction around a backfill
(``ops/auto_compaction.py``), on both clients; ``ClientFacade`` inherits it. Its own module so the facade stays
small; same construction as ``_endpoint_calls.py``."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, overload

from druid_ingest.clients._endpoint_calls import AsyncMode, EndpointCalls, Mode, SyncMode
from druid_ingest.ops import AutoCompactionPause, AutoCompactionResume
from druid_ingest.ops import auto_compaction as auto
from druid_ingest.wire import ProgressSink

__all__ = ["AutoCompactionCalls"]

PauseRecord = AutoCompactionPause | Mapping[str, Any] | None


class AutoCompactionCalls(EndpointCalls[Mode]):
    """Pause/resume of auto-compaction; every answer logged (``druid_ingest.auto_compaction``) and passed to
    ``on_progress``."""

    @overload
    def pause_auto_compaction(
        self: AutoCompactionCalls[SyncMode], datasource: str, *, adopt_suspended: bool = False,
        on_progress: ProgressSink | None = None,
    ) -> AutoCompactionPause: ...
    @overload
    def pause_auto_compaction(
        self: AutoCompactionCalls[AsyncMode], datasource: str, *, adopt_suspended: bool = False,
        on_progress: ProgressSink | None = None,
    ) -> Awaitable[AutoCompactionPause]: ...
    def pause_auto_compaction(
        self, datasource: str, *, adopt_suspended: bool = False, on_progress: ProgressSink | None = None,
    ) -> Any:
        """Pause ``datasource``'s auto-compaction; the record (``.to_json()`` for XCom or a file) the resume takes.
        Safe to retry: a retry after the config was deleted returns it from Druid's audit history."""
        return self._run(auto.pause_auto_compaction(datasource, adopt_suspended), on_progress)

    @overload
    def resume_auto_compaction(
        self: AutoCompactionCalls[SyncMode], datasource: str, record: PauseRecord, *,
        on_progress: ProgressSink | None = None,
    ) -> AutoCompactionResume: ...
    @overload
    def resume_auto_compaction(
        self: AutoCompactionCalls[AsyncMode], datasource: str, record: PauseRecord, *,
        on_progress: ProgressSink | None = None,
    ) -> Awaitable[AutoCompactionResume]: ...
    def resume_auto_compaction(
        self, datasource: str, record: PauseRecord, *, on_progress: ProgressSink | None = None,
    ) -> Any:
        """Put back what the pause saved (``record``: its result or ``to_json()``; None when lost: recovered from
        the audit history). Idempotent; a config re-created meanwhile is left as is."""
        return self._run(auto.resume_auto_compaction(datasource, record), on_progress)
