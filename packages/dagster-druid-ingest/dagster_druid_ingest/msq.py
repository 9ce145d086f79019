"""The MSQ flavour: a templated ``REPLACE``/``INSERT`` statement per partition, planned by the core.

Everything but the plan is the native path (submit or adopt, task wait, handoff gate): the core's
``build_msq_plan`` renders the statement with the partition's interval (``interval_start``, ``interval_end``,
``interval``, ``interval_date``, ``datasource``, plus ``variables``), refuses a ``REPLACE`` not bounded to exactly
that interval or not on ``PARTITIONED BY`` buckets, and pins the controller's task id (docs/msq.md).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from druid_ingest.planning import MsqPlan, build_msq_plan

from dagster_druid_ingest.partitions import PartitionWindow, schedule_terms

__all__ = ["MsqTemplate"]


@dataclass(frozen=True)
class MsqTemplate:
    """An MSQ statement template (text, or a ``Path`` to a ``.sql`` file) and how each partition fills it in."""

    sql: str | Path
    datasource: str | None = None
    query_context: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str | None = None
    allow_overwrite_all: bool = False
    allow_empty: bool = False
    #: the partitions' time zone: only the words of an unaligned-window refusal (``schedule_terms``)
    timezone: str = "UTC"

    def text(self) -> str:
        return self.sql.read_text(encoding="utf-8") if isinstance(self.sql, Path) else self.sql

    def plan(self, window: PartitionWindow, idempotency_key: str | None = None) -> MsqPlan:
        """The core MSQ plan for one partition (rendered and checked; no HTTP)."""
        return build_msq_plan(
            self.text(), intervals=[window.interval], datasource=self.datasource, context=self.query_context,
            variables={"partition_key": window.key, **self.variables},
            idempotency_key=idempotency_key or self.idempotency_key, allow_overwrite_all=self.allow_overwrite_all,
            allow_empty=self.allow_empty, schedule_terms=schedule_terms(self.timezone),
        )

    def loosened(self) -> None:
        """No opt-in: Druid itself refuses an MSQ window that is not on PARTITIONED BY buckets."""
        return None
