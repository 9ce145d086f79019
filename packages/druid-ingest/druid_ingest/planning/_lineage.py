"""Which datasets an ingestion reads and writes, named the OpenLineage way: pure, no OpenLineage import.

The Airflow face turns these :class:`DatasetRef` pairs into OpenLineage datasets (``common/openlineage.py``);
keeping the mapping here makes it testable without the ``[openlineage]`` extra and usable by any face.

Naming (OpenLineage's naming conventions where they cover the store; docs/openlineage.md says why):

* Druid (not in the conventions): namespace ``druid://{host}:{port}`` of the cluster's SQL entry point (the
  Broker, else the Router), name ``{datasource}``: Druid has one flat namespace of datasources per cluster.
* ``local``: namespace ``file``, name the path (``baseDir`` as a directory, or each of ``files``).
* ``s3`` / ``google`` / ``oss``: ``s3://{bucket}`` / ``gs://{bucket}`` / ``oss://{bucket}``, name the key.
* ``azureStorage``: ``wasbs://{container}@{account}.blob.core.windows.net``, name the blob path.
* ``azure`` (deprecated, account from Druid's runtime properties): ``azure://{container}``, name the path.
* ``http``: ``{scheme}://{host}[:port]``, name the path; user info, query and fragment are dropped (they can
  carry credentials or signed tokens).
* ``hdfs``: ``hdfs://{namenode}:{port}``, name the path. ``druid`` (reindexing): the cluster's own datasource.
* ``combining``: its delegates. ``inline``, ``sql`` and unknown types: no input dataset.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["DatasetRef", "druid_dataset", "druid_namespace", "input_datasets", "spec_input_datasets"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_OBJECT_STORE_SCHEMES = {"s3": "s3", "google": "gs", "gs": "gs", "oss": "oss"}


@dataclass(frozen=True)
class DatasetRef:
    """One dataset as OpenLineage names it: ``namespace`` (the datasource) and ``name`` (within it)."""

    namespace: str
    name: str


def druid_namespace(url: str) -> str:
    """``druid://host:port`` for a cluster URL (``https://router:9088`` -> ``druid://router:9088``).

    The port is always written (80/443 when the URL names none), so one cluster gets one namespace
    whichever way its URL was spelt.
    """
    parts = urlsplit(url if "://" in url else f"http://{url}")
    host = parts.hostname
    if not host:
        raise ValueError(f"cluster URL {url!r} has no host; expected e.g. http://router:8888")
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 80)
    return f"druid://{_host(host)}:{port}"


def druid_dataset(url: str, datasource: str) -> DatasetRef:
    """The Druid datasource an ingestion writes (the output dataset)."""
    return DatasetRef(druid_namespace(url), datasource)


def spec_input_datasets(spec: dict[str, Any], cluster_url: str | None = None) -> list[DatasetRef]:
    """The input datasets of a task spec (``spec.ioConfig.inputSource``), de-duplicated in order.

    ``cluster_url`` names the cluster for a ``druid`` (reindexing) input source; without it that input is left out.
    """
    body = spec.get("spec", spec)
    io_config = body.get("ioConfig") if isinstance(body, dict) else None
    source = io_config.get("inputSource") if isinstance(io_config, dict) else None
    return input_datasets(source, cluster_url)


def input_datasets(source: Any, cluster_url: str | None = None) -> list[DatasetRef]:
    """The datasets one input source reads (see the module docstring for the naming), de-duplicated in order."""
    seen: dict[DatasetRef, None] = {}
    for ref in _refs(source, cluster_url, depth=0):
        seen.setdefault(ref, None)
    return list(seen)


def _refs(source: Any, cluster_url: str | None, depth: int) -> Iterable[DatasetRef]:
    if not isinstance(source, dict) or depth > 8:
        return []
    kind = source.get("type")
    if kind == "local":
        return _local(source)
    if kind in _OBJECT_STORE_SCHEMES:
        return _object_store(source, _OBJECT_STORE_SCHEMES[kind])
    if kind == "azureStorage":
        return _azure_storage(source)
    if kind == "azure":
        return _object_store(source, "azure")
    if kind == "http":
        return [ref for uri in _strings(source.get("uris")) if (ref := _url_ref(uri)) is not None]
    if kind == "hdfs":
        return _hdfs(source.get("paths"))
    if kind == "druid":
        datasource = source.get("dataSource")
        if cluster_url and isinstance(datasource, str) and datasource:
            return [druid_dataset(cluster_url, datasource)]
        return []
    if kind == "combining":
        delegates = source.get("delegates")
        if not isinstance(delegates, list):
            return []
        return [ref for delegate in delegates for ref in _refs(delegate, cluster_url, depth + 1)]
    return []  # inline, sql, and types this package does not know: nothing nameable


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str) and item]
    return []


def _local(source: dict[str, Any]) -> list[DatasetRef]:
    files = _strings(source.get("files"))
    base_dir = source.get("baseDir")
    paths = [*([base_dir] if isinstance(base_dir, str) and base_dir else []), *files]
    return [DatasetRef("file", _path(p[len("file://"):] if p.startswith("file://") else p)) for p in paths]


def _path(path: str) -> str:
    return path.rstrip("/") or "/"


def _key(path: str) -> str:
    """An object key: no leading or trailing slash; the whole bucket is ``/``."""
    return path.strip("/") or "/"


def _object_store(source: dict[str, Any], scheme: str) -> list[DatasetRef]:
    refs = []
    for uri in [*_strings(source.get("uris")), *_strings(source.get("prefixes"))]:
        parts = urlsplit(uri)
        if parts.netloc:
            refs.append(DatasetRef(f"{scheme}://{parts.netloc}", _key(parts.path)))
    for obj in source.get("objects") or []:
        if isinstance(obj, dict) and isinstance(obj.get("bucket"), str) and obj["bucket"]:
            refs.append(DatasetRef(f"{scheme}://{obj['bucket']}", _key(str(obj.get("path") or ""))))
    return refs


def _azure_storage(source: dict[str, Any]) -> list[DatasetRef]:
    """``azureStorage://{account}/{container}/{path}``; objects are ``{"bucket": account, "path": container/path}``."""
    located: list[tuple[str, str]] = []
    for uri in [*_strings(source.get("uris")), *_strings(source.get("prefixes"))]:
        parts = urlsplit(uri)
        located.append((parts.netloc, parts.path))
    for obj in source.get("objects") or []:
        if isinstance(obj, dict) and isinstance(obj.get("bucket"), str):
            located.append((obj["bucket"], str(obj.get("path") or "")))
    refs = []
    for account, path in located:
        container, _, blob = path.strip("/").partition("/")
        if account and container:
            refs.append(DatasetRef(f"wasbs://{container}@{account}.blob.core.windows.net", _key(blob)))
    return refs


def _url_ref(uri: str) -> DatasetRef | None:
    parts = urlsplit(uri)
    if not parts.scheme or not parts.hostname:
        return None
    authority = _host(parts.hostname) + (f":{parts.port}" if parts.port else "")
    return DatasetRef(f"{parts.scheme.lower()}://{authority}", parts.path or "/")


def _hdfs(paths: Any) -> list[DatasetRef]:
    """``paths`` is a list or Druid's comma-separated string."""
    items = [p.strip() for p in paths.split(",")] if isinstance(paths, str) else _strings(paths)
    refs = []
    for path in items:
        if not path:
            continue
        ref = _url_ref(path) if "://" in path else None
        refs.append(ref if ref is not None else DatasetRef("hdfs", _path(path)))
    return refs


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
