"""What a task report says, as a value type: the one summary native and MSQ reports both parse into.

Its own module so that the models, the native parser (``reports``) and the MSQ parser (``msq_reports``) all
import it and none of them imports another in a circle.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["BUILD_SEGMENTS", "COUNTERS", "ReportSummary"]

COUNTERS: tuple[str, ...] = ("processed", "processedBytes", "processedWithError", "thrownAway", "unparseable")
BUILD_SEGMENTS = "buildSegments"


@dataclass
class ReportSummary:
    """The useful part of an ``ingestionStatsAndErrors`` report; every field may be missing."""

    task_id: str | None = None
    ingestion_state: str | None = None
    #: phase (buildSegments, determinePartitions, ...) -> the five row counters, as ints
    row_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    #: live reports only: phase -> window ("1m", "5m", "15m") -> counter -> rows per second
    moving_averages: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    error_msg: str | None = None
    unparseable_samples: list[str] = field(default_factory=list)
    unparseable_total: int = 0
    segment_availability_confirmed: bool | None = None
    segment_availability_wait_ms: int | None = None
    segments_published: int | None = None
    segments_read: int | None = None
    records_processed: int | None = None

    def totals(self) -> dict[str, int]:
        """The buildSegments counters (what ended up in segments), else the sum over phases."""
        if BUILD_SEGMENTS in self.row_stats:
            return dict(self.row_stats[BUILD_SEGMENTS])
        summed = dict.fromkeys(COUNTERS, 0)
        for counters in self.row_stats.values():
            for name in COUNTERS:
                summed[name] += counters.get(name, 0)
        return summed

    def format(self, *, include_error: bool = True) -> str:
        """Multi-line text for a task log: state, row counts, segments, the full errorMsg, samples."""
        lines = [f"Druid task {self.task_id or '?'} report: state={self.ingestion_state or 'unknown'}"]
        if self.row_stats:
            t = self.totals()
            lines.append(
                f"  rows: processed={t['processed']:,} ({t['processedBytes']:,} bytes), "
                f"with errors={t['processedWithError']:,}, unparseable={t['unparseable']:,}, "
                f"thrown away={t['thrownAway']:,}"
            )
            for phase, counters in self.row_stats.items():
                if phase != BUILD_SEGMENTS and len(self.row_stats) > 1:
                    lines.append(f"    {phase}: " + ", ".join(f"{k}={v:,}" for k, v in counters.items()))
        else:
            lines.append("  rows: no row stats in report")
        segments = f"  segments: published={_or_na(self.segments_published)}"
        if self.segments_read is not None:
            segments += f", read={self.segments_read:,}"
        lines.append(segments)
        if self.segment_availability_confirmed is not None:
            lines.append(
                f"  availability confirmed: {'yes' if self.segment_availability_confirmed else 'no'}"
                f" (waited {_or_na(self.segment_availability_wait_ms)} ms)"
            )
        if self.records_processed is not None:
            lines.append(f"  records processed: {self.records_processed:,}")
        if self.error_msg and include_error:
            lines.append("  errorMsg: " + self.error_msg)
        if self.unparseable_samples:
            shown = len(self.unparseable_samples)
            lines.append(f"  unparseable events (first {shown} of {self.unparseable_total}):")
            lines.extend(f"    - {sample}" for sample in self.unparseable_samples)
        return "\n".join(lines)

    def progress_line(self) -> str:
        """Row counts for periodic progress logging while the task runs (the caller names the task).

        The ingestion state is shown only when it says something: an ``index_parallel`` supervisor reports
        ``NOT_STARTED`` for itself while its subtasks process rows, which reads as "nothing happens".
        """
        t = self.totals() if self.row_stats else None
        state = self.ingestion_state if self.ingestion_state not in (None, "NOT_STARTED") else None
        if t is None:
            return f"{state}: no row stats yet" if state else "no row stats yet"
        text = (
            f"processed={t['processed']:,} errors={t['processedWithError']:,} "
            f"unparseable={t['unparseable']:,} thrownAway={t['thrownAway']:,}"
        )
        text = f"{state}: {text}" if state else text
        rate = self.moving_averages.get(BUILD_SEGMENTS, {}).get("1m", {}).get("processed")
        if rate is not None:
            text += f" (~{rate:,.1f} rows/s over 1m)"
        return text

    def to_dict(self) -> dict[str, Any]:
        """Only JSON primitives: safe for Airflow trigger events and XCom."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReportSummary:
        """Rebuild from :meth:`to_dict` output (e.g. a trigger event payload); unknown keys are ignored."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

def _or_na(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"
