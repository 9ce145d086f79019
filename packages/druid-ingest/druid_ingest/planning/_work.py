"""The one seam every kind of Druid work implements: what the waits, the gate and the faces need from a plan.

A plan is an immutable value built (and checked) before any HTTP. ``ensure_submitted`` asks it for the request
that starts an attempt; the input probe, the failed-attempt evidence and the handoff gate read its datasource,
intervals and mode; the faces log :meth:`Plan.describe` and size pools from :attr:`Plan.peak_slots`. Native batch
ingestion (``IngestionPlan``), MSQ (``MsqPlan``), compaction (``CompactionPlan``), kill (``KillPlan``), drop
(``DropPlan``) and restore (``RestorePlan``; these two are no task but a segment write, ``_segment_write.py``) are
its implementations; a new kind of work is one more.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from druid_ingest.wire import Request

__all__ = ["NATIVE_TASK_PATH", "Plan", "WorkKind"]

#: the Overlord's task submission path (druid-contract §submit): a native task spec with its pinned ``id``
NATIVE_TASK_PATH = "/druid/indexer/v1/task"
#: which kind of Druid work a plan is: how faces name it (asset metadata, lineage)
WorkKind = Literal["native", "msq", "compaction", "kill", "drop", "restore"]


class Plan(Protocol):
    """One unit of Druid work, pinned to its deterministic base task id (attempts are ``<id>_r<n>``)."""

    @property
    def kind(self) -> WorkKind: ...

    @property
    def mode(self) -> str:
        """How it writes, in the kind's own words (native: REPLACE, APPEND, REPLACE_LEGACY; MSQ: REPLACE, INSERT)."""
        ...

    @property
    def datasource(self) -> str: ...

    @property
    def intervals(self) -> tuple[str, ...]: ...

    @property
    def base_task_id(self) -> str: ...

    @property
    def peak_slots(self) -> int:
        """Druid task slots the work takes at its peak (pool sizing)."""
        ...

    @property
    def warnings(self) -> tuple[str, ...]: ...

    @property
    def append(self) -> bool:
        """Adds segments beside the chunk's existing ones (the gate's append mode; a failed attempt's evidence)."""
        ...

    @property
    def probes_input(self) -> bool:
        """A pre-submit input probe guards it: a replace that an empty input would turn into tombstones."""
        ...

    @property
    def publishes(self) -> bool:
        """Its task publishes segments the handoff gate then waits to see served (False: a kill deletes)."""
        ...

    @property
    def runs_task(self) -> bool:
        """It starts a Druid task (to adopt on retry and wait for); False: one request does the work (a drop)."""
        ...

    @property
    def task_spec(self) -> dict[str, Any] | None:
        """The native task spec, when the work is one (the probe and the evidence read it); None otherwise."""
        ...

    def describe(self) -> str:
        """One line for a task log or the CLI."""
        ...

    def submit_request(self, task_id: str) -> Request:
        """The POST that starts the attempt named ``task_id``."""
        ...
