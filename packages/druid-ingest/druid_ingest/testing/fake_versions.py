"""The fake Druid's version profile: every rule that differs between Druid releases, one named predicate each,
citing the Druid source (file and pull request) it models. ``FakeDruid(version=...)`` (default
:data:`DEFAULT_VERSION`, what the dev cluster runs) answers ``GET /status`` with it and the handlers ask these
predicates; docs/druid-contract.md §versions lists them with the test that shows each.

A version that does not parse (``druid_ingest.planning.druid_release``) counts as the newest release: a fake told
"SNAPSHOT-of-something" behaves like current Druid, as the client assumes of such a cluster.
"""

from __future__ import annotations

from druid_ingest.planning import druid_release

__all__ = [
    "AUTO_COMPACTION_PREFIX_AUTO_SINCE",
    "COORDINATOR_REDIRECTS_SEGMENT_WRITES_SINCE",
    "DEFAULT_VERSION",
    "OVERLORD_SEGMENT_WRITES_SINCE",
    "REPORT_MAY_BE_MISSING_SINCE",
    "STRICT_SNI_SINCE",
    "auto_compaction_task_prefix",
    "checks_sni_host",
    "coordinator_redirects_segment_writes",
    "coordinator_serves_segment_writes",
    "major",
    "overlord_serves_segment_writes",
    "success_may_lack_report",
]

#: what the dev cluster runs, and every test that does not ask for a version
DEFAULT_VERSION = "33.0.0"

#: ``indexing-service/.../overlord/http/OverlordDataSourcesResource.java`` (apache/druid #17545, Druid 32):
#: ``POST /druid/indexer/v1/datasources/{ds}/markUnused`` and the other segment writes on the Overlord
OVERLORD_SEGMENT_WRITES_SINCE = 32
#: ``server/.../server/http/DataSourcesResource.java`` (apache/druid #17935, Druid 34; documented by #17999): the
#: Coordinator no longer updates segments, its paths "simply redirect the request to the Overlord"
COORDINATOR_REDIRECTS_SEGMENT_WRITES_SINCE = 34
#: Druid 35: a task can finish without its report pushed (``indexing-service/.../common/task/AbstractTask.java``
#: pushing the report file: apache/druid #18206, #18379 "AbstractTask could be unable to find the report"; the
#: release each shipped in was not checked, the 35 is the issue's)
REPORT_MAY_BE_MISSING_SINCE = 35
#: Druid 35 moved to Jetty 12 (apache/druid #18424), whose ``SecureRequestCustomizer`` checks the request's host
#: against the server certificate even with one certificate: 400 "Invalid SNI" (#18623 made it opt-out, default on)
STRICT_SNI_SINCE = 35
#: ``server/.../server/coordinator/duty/CompactSegments.java`` ``TASK_ID_PREFIX``: ``coordinator-issued`` through
#: Druid 36, ``auto`` from 37 (the renaming PR was not found; #19252 edits that line)
AUTO_COMPACTION_PREFIX_AUTO_SINCE = 37


def major(version: str) -> int:
    """The release's major number; a version that does not parse is the newest release (a very large number)."""
    release = druid_release(version)
    return release[0] if release is not None else 10**6


def overlord_serves_segment_writes(version: str) -> bool:
    """Whether ``/druid/indexer/v1/datasources/{ds}/markUnused`` exists (404 before Druid 32)."""
    return major(version) >= OVERLORD_SEGMENT_WRITES_SINCE


def coordinator_redirects_segment_writes(version: str) -> bool:
    """Whether the Coordinator's markUnused answers 307 to the Overlord's path instead of marking (Druid 34+)."""
    return major(version) >= COORDINATOR_REDIRECTS_SEGMENT_WRITES_SINCE


def coordinator_serves_segment_writes(version: str) -> bool:
    """Whether the Coordinator's markUnused marks itself (through Druid 33: directly before 32, via the Overlord
    in 32 and 33, with the same answer to the caller)."""
    return not coordinator_redirects_segment_writes(version)


def success_may_lack_report(version: str) -> bool:
    """Whether a task that ended SUCCESS can have no report (``FakeDruid.plan_missing_report``; Druid 35+)."""
    return major(version) >= REPORT_MAY_BE_MISSING_SINCE


def checks_sni_host(version: str) -> bool:
    """Whether a TLS request whose host the certificate does not name gets 400 "Invalid SNI" (Druid 35+)."""
    return major(version) >= STRICT_SNI_SINCE


def auto_compaction_task_prefix(version: str) -> str:
    """The id prefix of the compaction tasks auto-compaction issues (``<prefix>_compact_<ds>_<random>_<now>``)."""
    return "auto" if major(version) >= AUTO_COMPACTION_PREFIX_AUTO_SINCE else "coordinator-issued"
