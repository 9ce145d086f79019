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
#: ``server/src/main/java/org/apache/druid/server/http/DataSourcesResource.java``: apache/druid #17935 took segment
#: updates off the Coordinator (first shipped in 34.0.0, as apache/druid #20750 states); #17999's release note says
#: its paths "simply redirect the request to the Overlord". The 307 is modelled on ``RedirectFilter``: the stored
#: copies of DataSourcesResource.java read (commits dbe3b922, 001a7733) predate #17935
COORDINATOR_REDIRECTS_SEGMENT_WRITES_SINCE = 34
#: Druid 35 moved to Jetty 12 (apache/druid #18424), whose ``SecureRequestCustomizer`` checks the request's host
#: against the server certificate even with one certificate: 400 "Invalid SNI" (#18623 made it opt-out, default on)
STRICT_SNI_SINCE = 35
#: ``server/src/main/java/org/apache/druid/server/coordinator/duty/CompactSegments.java`` ``TASK_ID_PREFIX``, passed
#: to ``IdUtils.newTaskId`` with the type and datasource: ``coordinator-issued`` in the stored copy read (a 2026
#: one), ``auto`` from apache/druid #19252 (merged April 2026; release note "Automatic compaction tasks are now
#: prefixed with auto instead of coordinator-issued"), backported to 37.0.0 by #19292
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
    """Whether a task that ended SUCCESS can have no report (``FakeDruid.plan_missing_report``): on every release.

    ``indexing-service/src/main/java/org/apache/druid/indexing/common/task/AbstractTask.java`` (``cleanUp``) pushes
    the report of a task run as a Kubernetes job only when its file exists and reports the status either way;
    apache/druid #18197 saw such reports missing since Druid 28, and #18206 and #18379 (August 2025) are fixes to
    that path, not where it began. No release where a SUCCESS always has its report was found, so none is modelled.
    """
    del version  # kept so every rule reads the same way; no release bound is known
    return True


def checks_sni_host(version: str) -> bool:
    """Whether a TLS request whose host the certificate does not name gets 400 "Invalid SNI" (Druid 35+)."""
    return major(version) >= STRICT_SNI_SINCE


def auto_compaction_task_prefix(version: str) -> str:
    """The id prefix of the compaction tasks auto-compaction issues (``<prefix>_compact_<ds>_<random>_<now>``)."""
    return "auto" if major(version) >= AUTO_COMPACTION_PREFIX_AUTO_SINCE else "coordinator-issued"
