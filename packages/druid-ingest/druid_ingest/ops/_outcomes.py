"""How a wait ended, as one typed value per thing waited on; ``to_dict()`` is the Airflow trigger event.

A wait (``waits.py``) never raises for an outcome a caller must decide about (FAILED, a timeout, zero-replica
rules): it returns one of these, and :meth:`settle` turns it into the value or the one error of the taxonomy.
So the sync worker path, the triggers and the Dagster face all interpret a wait the same way, and a trigger can
serialize the outcome as primitives and rebuild it on the other side with ``from_dict``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast

from druid_ingest.api import HandoffResult, ReportSummary, TaskStatus, bounded, task_failed_error
from druid_ingest.errors import (
    DruidEmptyIngestionError,
    DruidError,
    DruidTaskFailedError,
    HandoffNeverError,
    error_from_names,
    error_names,
    is_fatal,
)
from druid_ingest.ops._input_probe import PROBE_READ_OK
from druid_ingest.ops._options import OnNever, check_on_never

__all__ = [
    "HANDOFF_KINDS",
    "INGESTION_KINDS",
    "MAX_EVENT_ERROR_CHARS",
    "TASK_KINDS",
    "HandoffOutcome",
    "HandoffVerdict",
    "IngestResult",
    "IngestionOutcome",
    "NothingToCompact",
    "OnNever",
    "SubmitOutcome",
    "TaskOutcome",
    "check_on_never",
]

TaskKind = Literal["success", "failed", "timeout", "error"]
HandoffKind = Literal["success", "never", "timeout", "error"]
TASK_KINDS: frozenset[str] = frozenset({"success", "failed", "timeout", "error"})
HANDOFF_KINDS: frozenset[str] = frozenset({"success", "never", "timeout", "error"})
INGESTION_KINDS: frozenset[str] = TASK_KINDS | HANDOFF_KINDS


_NOTE = " with a message from Druid: "
#: a SUCCESS without a report (any Druid release can finish a task without one): the run stays green, the gate decides
_NO_REPORT = "; Druid has no report for it (no row counts to show)"
#: Druid's errorMsg in a trigger event at most (characters): events are stored in the metadata database
MAX_EVENT_ERROR_CHARS = 64_000


def _names(data: dict[str, Any]) -> tuple[str, ...]:
    names = data.get("error_classes")
    return tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()


def _event_head(data: Any, kinds: frozenset[str], what: str) -> tuple[str, str, str]:
    """(kind, Druid task id, message) of an event dict; ValueError for anything else (a resumed task can be handed
    None or an unknown status, and must fail loudly)."""
    if not isinstance(data, dict) or data.get("status") not in kinds or not isinstance(data.get("druid_task_id"), str):
        raise ValueError(f"not a {what} outcome: {data!r}; expected a dict with status in {sorted(kinds)}")
    return str(data["status"]), data["druid_task_id"], str(data.get("message") or "")


@dataclass(frozen=True)
class TaskOutcome:
    """The end of a task wait. ``status`` is the last TaskStatus seen (local only: not in the event)."""

    kind: TaskKind
    task_id: str
    message: str
    report: ReportSummary | None = None
    version_ceiling: str | None = None
    status: TaskStatus | None = field(default=None, compare=False)
    #: an ``error`` that retrying cannot fix (``errors.is_fatal``: a 401/403/404, a refused redirect...); it travels
    #: in the trigger event so a deferred wait fails without Airflow retries, as the same error in a worker does
    fatal: bool = False
    #: an ``error``'s taxonomy class names (``errors.error_names``), so the other side of an event raises the same
    error_classes: tuple[str, ...] = ()
    #: the last look (``clock()`` time) that saw the task still active: its end came after it (local only: the
    #: handoff wait plans its looks from it, ``gate/looks.py``)
    ended_after: float | None = field(default=None, compare=False)

    @classmethod
    def terminal(cls, status: TaskStatus, report: ReportSummary | None) -> TaskOutcome:
        if status.state == "SUCCESS":
            note = f'{_NOTE}"{status.error_msg}"' if status.error_msg else ""
            missing = "" if report is not None else _NO_REPORT
            message = f"Druid task {status.task_id} SUCCESS{note}{missing}"
            return cls("success", status.task_id, message, report, status.version_ceiling, status)
        message = str(task_failed_error(status, report))  # full errorMsg, row stats, first unparseable events
        return cls("failed", status.task_id, message, report, status.version_ceiling, status)

    @property
    def has_druid_note(self) -> bool:
        """A SUCCESS that Druid annotated (``errorMsg`` on a SUCCESS status, e.g. an empty input): worth a warning."""
        return self.kind == "success" and _NOTE in self.message

    @classmethod
    def timed_out(cls, status: TaskStatus, waited: float) -> TaskOutcome:
        message = (
            f"Druid task {status.task_id} still {status.phase} after {waited:.0f}s: it keeps running in Druid (only "
            f"this wait stopped). Stop it with POST /druid/indexer/v1/task/{status.task_id}/shutdown on the Overlord "
            "(DruidClient.shutdown), or wait again: the same spec adopts it, never submits a second one"
        )
        return cls("timeout", status.task_id, message, None, status.version_ceiling, status)

    @classmethod
    def errored(cls, task_id: str, exc: BaseException) -> TaskOutcome:
        return cls("error", task_id, f"waiting for Druid task {task_id} failed: {exc}", fatal=is_fatal(exc),
                   error_classes=error_names(exc))

    def settle(self) -> TaskStatus:
        """The SUCCESS status, or the error this outcome stands for."""
        if self.kind == "success" and self.status is not None:
            return self.status
        raise self.error()

    def error(self, note: str = "") -> DruidError:
        """The error this outcome stands for, with ``note`` after its message (a face's hint): the classes it names
        (a trigger event's ``error_classes``), so a rule keyed on a core class (Airflow's ``RetryRule``, which
        matches by ``isinstance``) matches it on either side of an event. A timeout during an outage is also the
        outage's last error class."""
        text = self.message + note
        if self.kind == "failed":
            return DruidTaskFailedError(self.task_id, self.report.error_msg if self.report else None, text)
        if self.kind == "timeout":
            return error_from_names(("DruidWaitTimeoutError", *self.error_classes), text)
        return error_from_names(self.error_classes, text, fatal=self.fatal)

    def to_dict(self) -> dict[str, Any]:
        """The trigger event. Druid's errorMsg travels once, in ``summary``, cut to ``MAX_EVENT_ERROR_CHARS`` (a
        failed task's report can hold megabytes of stack trace; the ``message`` has its bounded head)."""
        summary = None
        if self.report is not None:
            summary = self.report.to_dict()
            if summary.get("error_msg"):
                summary["error_msg"] = bounded(str(summary["error_msg"]), MAX_EVENT_ERROR_CHARS)
        return {
            "status": self.kind,
            "druid_task_id": self.task_id,
            "message": self.message,
            "summary": summary,
            "summary_text": self.report.format(include_error=False) if self.report is not None else None,
            "version_ceiling": self.version_ceiling,
            "fatal": self.fatal,
            "error_classes": list(self.error_classes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskOutcome:
        kind, task_id, message = _event_head(data, TASK_KINDS, "task")
        summary = data.get("summary")
        report = ReportSummary.from_dict(summary) if isinstance(summary, dict) else None
        return cls(cast(TaskKind, kind), task_id, message, report, data.get("version_ceiling"),
                   fatal=data.get("fatal") is True, error_classes=_names(data))


@dataclass(frozen=True)
class HandoffVerdict:
    """What every face does with a gate outcome (:meth:`HandoffOutcome.verdict`): pass, logging ``line`` at
    ``level``, or fail with ``error`` (fatal or not: ``is_fatal`` says whether a retry can help). The faces only
    map it to their own exceptions and log calls; the rule lives here once."""

    passed: bool
    level: Literal["info", "warning"]
    line: str
    error: DruidError | None = None


@dataclass(frozen=True)
class HandoffOutcome:
    """The end of a handoff wait: ``success`` (loaded, nothing or superseded), ``never``, ``timeout``, ``error``."""

    kind: HandoffKind
    task_id: str
    message: str
    result: HandoffResult | None = None
    fatal: bool = False  # as TaskOutcome.fatal
    error_classes: tuple[str, ...] = ()  # as TaskOutcome.error_classes

    @classmethod
    def of(cls, task_id: str, datasource: str, result: HandoffResult) -> HandoffOutcome:
        kind: HandoffKind = "success" if result.done else "never" if result.state == "never" else "timeout"
        return cls(kind, task_id, f"{datasource}: {result.state}: {result.detail}", result)

    @classmethod
    def errored(cls, task_id: str, exc: BaseException) -> HandoffOutcome:
        return cls("error", task_id, f"waiting for handoff of Druid task {task_id} failed: {exc}",
                   fatal=is_fatal(exc), error_classes=error_names(exc))

    @property
    def empty(self) -> bool:
        """The task published nothing: no new data, nothing replaced."""
        return self.result is not None and self.result.state == "nothing"

    def verdict(self, on_never: str = "fail", allow_empty: bool = False) -> HandoffVerdict:
        """Pass when the data is queryable (or, with ``on_never="pass"``, never will be), else fail.

        An ingestion that published nothing fails unless ``allow_empty`` (fatal: a retry adopts the same
        SUCCESS task): a missing input folder must not go green with the interval's old data still in place.
        A timeout or an error fails retryably unless fatal (a retry adopts the SUCCESS task and waits again).
        """
        if self.empty:
            if not allow_empty:
                return HandoffVerdict(False, "warning", self.message, self.empty_error())
            return HandoffVerdict(True, "warning",
                                  f"Druid task {self.task_id} published nothing (allow_empty=True): {self.message}")
        if self.kind == "success":
            return HandoffVerdict(True, "info", f"Data of Druid task {self.task_id} is queryable: {self.message}")
        if self.kind == "never" and on_never == "pass":
            return HandoffVerdict(True, "warning",
                                  f"Segments of {self.task_id} will never load (on_never='pass'): {self.message}")
        return HandoffVerdict(False, "warning", self.message, self.error())

    def settle(self, on_never: str = "fail", allow_empty: bool = False) -> HandoffResult:
        """:meth:`verdict` for a caller that raises: the HandoffResult when it passed, else its error."""
        verdict = self.verdict(on_never, allow_empty)
        if verdict.error is not None:
            raise verdict.error
        assert self.result is not None  # a passing verdict always has one (success, never, nothing)
        return self.result

    def empty_error(self) -> DruidEmptyIngestionError:
        if self.result is not None and self.result.expected > 0:  # tombstones: the old data is gone
            return DruidEmptyIngestionError(
                f"Druid task {self.task_id} succeeded but wrote no rows ({self.message}). Its tombstones replaced "
                "the interval: queries now read nothing there. Check that the input for this interval exists and "
                "holds rows with valid timestamps (the input locations, timestampSpec column and format, filters). "
                "To accept empty intervals pass allow_empty=True; to restore the data, fix the input and run again "
                "with a new idempotency_key."
            )
        return DruidEmptyIngestionError(
            f"Druid task {self.task_id} succeeded but published no segments ({self.message}). Nothing was replaced: "
            "queries still read what the interval held before. Check that the input for this interval exists and "
            "holds rows with valid timestamps (the input locations, timestampSpec column and format, filters). "
            "To accept empty intervals (holidays, quiet days) pass allow_empty=True; to re-ingest after fixing the "
            "input, run again with a new idempotency_key (the same spec adopts this succeeded task)."
        )

    def error(self) -> DruidError:
        if self.kind == "never":
            never = self.result.never if self.result is not None else ()
            shown = ", ".join(never[:3]) + ("..." if len(never) > 3 else "")
            return HandoffNeverError(
                f"segments of Druid task {self.task_id} will never load: {self.message} ({shown}); fix the "
                "datasource's load rules, or pass on_never='pass' to accept deep-storage-only data"
            )
        if self.kind == "timeout":
            text = f"segments of Druid task {self.task_id} not queryable in time: {self.message}"
            return error_from_names(("DruidWaitTimeoutError", *self.error_classes), text)
        return error_from_names(self.error_classes, self.message, fatal=self.fatal)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.kind,
            "druid_task_id": self.task_id,
            "message": self.message,
            "result": self.result.to_dict() if self.result is not None else None,
            "fatal": self.fatal,
            "error_classes": list(self.error_classes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandoffOutcome:
        kind, task_id, message = _event_head(data, HANDOFF_KINDS, "handoff")
        result = data.get("result")
        verdict = HandoffResult.from_dict(result) if isinstance(result, dict) else None
        return cls(cast(HandoffKind, kind), task_id, message, verdict, fatal=data.get("fatal") is True,
                   error_classes=_names(data))


@dataclass(frozen=True)
class IngestionOutcome:
    """Both waits of one ingestion in one value (one deferral): the task's end, then the handoff's, if reached."""

    task: TaskOutcome
    handoff: HandoffOutcome | None = None

    @property
    def kind(self) -> str:
        return self.task.kind if self.task.kind != "success" or self.handoff is None else self.handoff.kind

    @property
    def message(self) -> str:
        return self.task.message if self.handoff is None else self.handoff.message

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.kind,
            "druid_task_id": self.task.task_id,
            "message": self.message,
            "task": self.task.to_dict(),
            "handoff": self.handoff.to_dict() if self.handoff is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IngestionOutcome:
        if data.get("status") not in INGESTION_KINDS or not isinstance(data.get("task"), dict):
            raise ValueError(f"not an ingestion outcome: {data!r}")
        handoff = data.get("handoff")
        return cls(TaskOutcome.from_dict(data["task"]), HandoffOutcome.from_dict(handoff) if handoff else None)


# ---- what an operation did (the submit or adoption, the one-call ingestion) ------------------------------


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
class NothingToCompact:
    """The green outcome of a compaction that had nothing to compact (``allow_empty=True``): Druid's FAILED task
    ``task_id`` is kept as it is, nothing was written, no gate ran. ``line`` is what a face logs."""

    task_id: str
    datasource: str
    interval: str
    line: str
    outcome: str = "nothing to compact"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class IngestResult:
    """What the one-call ingestion did: the submit (or adoption), the terminal status, the final report,
    and the handoff verdict (None when the caller did not wait for handoff), and the capacity check's line
    (level, message) when it had one. ``nothing_to_compact``: a compaction that found no segment, taken as done
    with ``allow_empty`` (``ops._nothing_to_compact``); ``status`` is then Druid's FAILED task."""

    submit: SubmitOutcome
    status: TaskStatus
    report: ReportSummary | None
    handoff: HandoffResult | None
    capacity: tuple[str, str] | None = None
    nothing_to_compact: NothingToCompact | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
