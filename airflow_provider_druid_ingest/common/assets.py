"""The default outlet of the Druid classes: ``Asset("druid://<conn_id>/<datasource>")``."""

from __future__ import annotations

from typing import Any

__all__ = ["default_outlets"]


def default_outlets(spec: Any, datasource: Any, conn_id: str) -> list[Any]:
    """``[Asset("druid://<conn>/<datasource>")]`` when the datasource is known at parse time, else []."""
    if not datasource and isinstance(spec, dict):
        schema = (spec.get("spec") or spec).get("dataSchema") if isinstance(spec.get("spec") or spec, dict) else None
        datasource = schema.get("dataSource") if isinstance(schema, dict) else None
    if not isinstance(datasource, str) or not datasource or "{" in datasource:
        return []
    from airflow.sdk import Asset

    return [Asset(f"druid://{conn_id}/{datasource}")]
