"""The Druid Asset: ``druid://<conn_id>/<datasource>``, its URI rule, and the extra of its events.

Airflow emits an event for every outlet of a task that succeeds, and our tasks succeed only once the data is
queryable, so the event itself means "queryable". The classes add to it (``outlet_events``) what a downstream DAG
needs to read the new data: the Druid task id and the interval(s). The two successes that do not mean "new data is
served" (``allow_empty`` with nothing published, ``on_never="pass"``) say so in the extra (``queryable: false``),
since Airflow offers no way to withhold the event of a successful task. Nor does ``superseded``: a later
ingestion replaced this task's version before or after it was served, so queries read *that* task's data.
``queryable`` speaks of this task's data (false then), ``served_by_task`` names the task whose version is read
(this one when ``loaded``; the later one when ``superseded``, None when the task list does not tell) and
``superseded_by`` that version: a consumer checks ``queryable`` or compares ``served_by_task`` with
``druid_task_id`` instead of reading the winner's rows as ours.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from airflow_provider_druid_ingest.common.run_context import run_partition_key

if TYPE_CHECKING:
    from urllib.parse import SplitResult

    from airflow.sdk import Asset
    from druid_ingest.api import HandoffResult

__all__ = [
    "SCHEME",
    "asset_uri",
    "default_outlets",
    "druid_asset",
    "event_extra",
    "record_event",
    "run_partition_key",
    "sanitize_uri",
    "served_by",
]

SCHEME = "druid"


def asset_uri(conn_id: str, datasource: str) -> str:
    """``druid://<conn_id>/<datasource>``; both parts must be non-empty and free of ``/``."""
    for name, value in (("conn_id", conn_id), ("datasource", datasource)):
        if not isinstance(value, str) or not value or "/" in value or value != value.strip():
            raise ValueError(f"Druid asset {name}={value!r}: expected a non-empty name without '/' or surrounding "
                             "spaces (druid://<conn_id>/<datasource>)")
    return f"{SCHEME}://{conn_id}/{datasource}"


def druid_asset(datasource: str, conn_id: str = "druid_cluster_default") -> Asset:
    """The Asset our classes emit for ``datasource``: use it in a downstream DAG's ``schedule``."""
    from airflow.sdk import Asset

    return Asset(asset_uri(conn_id, datasource))


def sanitize_uri(uri: SplitResult) -> SplitResult:
    """Airflow's URI handler for the ``druid`` scheme (``asset-uris`` in get_provider_info).

    Airflow has already lower-cased the scheme and dropped trailing slashes, query order and fragment; a Druid
    asset names a connection and one datasource, so anything else is a mistake worth failing the DAG file for.
    """
    datasource = uri.path[1:] if uri.path.startswith("/") else uri.path
    if not uri.netloc or not datasource or "/" in datasource:
        raise ValueError(f"Druid asset URI {uri.geturl()!r}: expected druid://<conn_id>/<datasource> (one "
                         "connection id, one datasource)")
    if uri.query:
        raise ValueError(f"Druid asset URI {uri.geturl()!r}: a query string is not part of a Druid asset")
    return uri


def default_outlets(spec: Any, datasource: Any, conn_id: str) -> list[Any]:
    """``[Asset("druid://<conn>/<datasource>")]`` when the datasource is known at parse time, else []."""
    if not datasource and isinstance(spec, dict):
        schema = (spec.get("spec") or spec).get("dataSchema") if isinstance(spec.get("spec") or spec, dict) else None
        datasource = schema.get("dataSource") if isinstance(schema, dict) else None
    if not isinstance(datasource, str) or not datasource or "{" in datasource:
        return []
    return [druid_asset(datasource, conn_id)]


def served_by(druid_task_id: str, handoff: str, result: HandoffResult | None = None) -> str | None:
    """The Druid task whose version queries read once the gate ended ``handoff`` (see the module docstring)."""
    if handoff == "loaded":
        return druid_task_id
    return result.superseded_by_task if handoff == "superseded" and result is not None else None


def event_extra(
    *, conn_id: str, datasource: str, intervals: Sequence[str], druid_task_id: str, handoff: str,
    queryable: bool = True, result: HandoffResult | None = None,
) -> dict[str, Any]:
    """What a downstream DAG reads from the event: ``interval`` spans all ``intervals`` (ISO ``start/end``).

    ``queryable`` is false when superseded (a later task's data is read); ``result`` names that task."""
    starts = [i.split("/", 1)[0] for i in intervals]
    ends = [i.split("/", 1)[1] for i in intervals if "/" in i]
    return {
        "druid_task_id": druid_task_id,
        "conn_id": conn_id,
        "datasource": datasource,
        "interval": f"{min(starts)}/{max(ends)}" if starts and ends else None,
        "intervals": list(intervals),
        "handoff": handoff,
        "queryable": queryable and handoff != "superseded",
        "served_by_task": served_by(druid_task_id, handoff, result),
        "superseded_by": result.superseded_by if result is not None and handoff == "superseded" else None,
    }


def record_event(context: Any, outlets: Iterable[Any], extra: dict[str, Any]) -> list[str]:
    """Put ``extra`` on the pending event of each of ``outlets`` that is this datasource's Druid asset.

    Call it only on the success path after the handoff gate: a task that fails emits no event at all. Returns
    the URIs it annotated (other outlets, e.g. a user's own Asset, are left as they are). In a partitioned run
    the event is the run's partition (``add_partitions``, where the accessor has it: Airflow 3.3); any other run
    emits an unkeyed event as before, since a keyed event does not schedule a non-partitioned consumer.
    """
    from airflow.sdk import Asset

    events = context.get("outlet_events") if hasattr(context, "get") else None
    if events is None:
        return []
    want = asset_uri(extra["conn_id"], extra["datasource"])
    key = run_partition_key(context)
    done = []
    for outlet in outlets:
        if isinstance(outlet, Asset) and outlet.uri == want:
            accessor = events[outlet]
            accessor.extra.update(extra if key is None else {**extra, "partition_key": key})
            add_partitions = getattr(accessor, "add_partitions", None)  # feature test: absent before 3.3
            if key is not None and callable(add_partitions):
                add_partitions(key)
            done.append(outlet.uri)
    return done
