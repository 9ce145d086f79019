"""The Druid API: one pure function per endpoint that builds a request and one that parses the answer (incl.
segments and MSQ), the value types they return (incl. ``ReportSummary``), the report parsers.

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private, except ``api.endpoints``, the one face of every endpoint (a pure
request builder and answer parser each) that the operations and clients build on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from ._models import (
        FAILED,
        SUCCESS,
        ClusterCapacity,
        DataServer,
        HandoffResult,
        HandoffTarget,
        InputSample,
        Segment,
        TaskLock,
        TaskStatus,
    )
    from ._report_summary import ReportSummary
    from ._reports import bounded, parse_report, task_failed_error
    from ._sql_endpoints import SqlResult

#: where each public name lives
_WHERE = {
    "ClusterCapacity": "_models",
    "DataServer": "_models",
    "FAILED": "_models",
    "HandoffResult": "_models",
    "HandoffTarget": "_models",
    "InputSample": "_models",
    "ReportSummary": "_report_summary",
    "SUCCESS": "_models",
    "Segment": "_models",
    "SqlResult": "_sql_endpoints",
    "TaskLock": "_models",
    "TaskStatus": "_models",
    "bounded": "_reports",
    "parse_report": "_reports",
    "task_failed_error": "_reports",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "FAILED",
    "SUCCESS",
    "ClusterCapacity",
    "DataServer",
    "HandoffResult",
    "HandoffTarget",
    "InputSample",
    "ReportSummary",
    "Segment",
    "SqlResult",
    "TaskLock",
    "TaskStatus",
    "bounded",
    "parse_report",
    "task_failed_error",
]
