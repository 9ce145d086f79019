"""One mapping from the core's errors and outcomes to ``dagster.Failure``.

Whether Dagster may retry is the only decision made here: a step ``RetryPolicy`` re-runs the step, and the core
then adopts a running/succeeded task or submits the next attempt id after a FAILED one. So a FAILED task is
retryable where a retry resubmits (the asset, the submit op), and final where it cannot (the wait op only
watches). Errors that a retry cannot change (a malformed spec, bad credentials, an empty ingestion that a retry
would adopt again, a compaction with nothing to compact, load rules that never load) never burn retries.
"""

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import dagster as dg
from druid_ingest.errors import (
    DruidEmptyIngestionError,
    DruidError,
    DruidFatalError,
    DruidNothingToCompactError,
    HandoffNeverError,
    SpecValidationError,
)
from druid_ingest.ops import TaskOutcome

__all__ = ["as_failures", "failure_of", "task_failure"]

_FINAL = (DruidFatalError, DruidEmptyIngestionError, DruidNothingToCompactError, HandoffNeverError, SpecValidationError)


def failure_of(exc: DruidError | SpecValidationError, metadata: Mapping[str, Any] | None = None) -> dg.Failure:
    """The Failure for a core error raised in a step; retries only where waiting or resubmitting can help."""
    return dg.Failure(description=str(exc), metadata=dict(metadata or {}), allow_retries=not isinstance(exc, _FINAL))


@contextmanager
def as_failures(metadata: Mapping[str, Any] | None = None) -> Iterator[None]:
    """Core errors inside become Failures (with ``metadata``); anything else, interrupts included, passes."""
    try:
        yield
    except (DruidError, SpecValidationError) as exc:
        raise failure_of(exc, metadata) from None


def task_failure(task: TaskOutcome, metadata: Mapping[str, Any], *, resubmits: bool) -> dg.Failure:
    """A task wait that did not end in SUCCESS. For FAILED, the description is the core's one failure text:
    the full errorMsg, row stats and first unparseable events (what alerts and ``run_failure_sensor`` get).

    ``resubmits``: whether a retry of this step submits the next attempt (the asset) or only re-watches the
    same FAILED task (the wait op: no retry then). A timeout or a transiently failed wait is worth a retry.
    """
    extra = dict(metadata)
    if task.report is not None:
        extra["druid/report"] = dg.MetadataValue.md(f"```\n{task.report.format()}\n```")
    if task.kind != "failed":  # a fatal error (401, 403, ...) met while waiting is not worth a retry either
        return dg.Failure(description=task.message, metadata=extra, allow_retries=not task.fatal)
    note = "" if resubmits else "\n(re-run the submit step to submit the next attempt: retrying a wait cannot)"
    return dg.Failure(description=task.message + note, metadata=extra, allow_retries=resubmits)
