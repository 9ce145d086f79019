"""What an operation did, as plain values every face can serialize: the submit (or adoption) and the
one-call ingestion. They live beside the operations that make them; ``api`` holds only Druid's own answers."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from druid_ingest.api import HandoffResult, ReportSummary, TaskStatus
from druid_ingest.ops._input_probe import PROBE_READ_OK

__all__ = ["IngestResult", "SubmitOutcome"]


@dataclass(frozen=True)
class SubmitOutcome:
    """What ``ensure_submitted`` did: ``action`` is ``submitted`` (a POST created it) or ``adopted``.

    ``input_probe``: the one line the pre-submit input probe left (``input probe: ...`` or ``input probe
    skipped: <why>``), None when none ran (adopted, append, allow_empty, MSQ). ``previous_attempt``: why the
    attempt after a FAILED one was submitted (``_evidence.next_attempt_line``), None for attempt 0 or an adoption.
    """

    task_id: str
    action: str
    attempt: int
    state: str
    base_id: str
    input_probe: str | None = None
    previous_attempt: str | None = None

    @property
    def input_probe_warns(self) -> bool:
        """Whether the probe's line deserves a warning: it was skipped, or it read rows and indexed none."""
        return self.input_probe is not None and not self.input_probe.startswith(PROBE_READ_OK)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class IngestResult:
    """What the one-call ingestion did: the submit (or adoption), the terminal status, the final report,
    and the handoff verdict (None when the caller did not wait for handoff)."""

    submit: SubmitOutcome
    status: TaskStatus
    report: ReportSummary | None
    handoff: HandoffResult | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
