"""The input-source -> OpenLineage dataset mapping (core/lineage.py): pure, no OpenLineage installed needed."""

from __future__ import annotations

import pytest
from druid_ingest.planning._lineage import (
    DatasetRef,
    druid_dataset,
    druid_namespace,
    input_datasets,
    spec_input_datasets,
)

CLUSTER = "http://router.example:8888"
D = DatasetRef


@pytest.mark.parametrize(
    ("url", "namespace"),
    [
        ("http://router.example:8888", "druid://router.example:8888"),
        ("https://router.example", "druid://router.example:443"),
        ("http://Router.Example/", "druid://router.example:80"),
        ("router.example:8082", "druid://router.example:8082"),
        ("http://[::1]:8888", "druid://[::1]:8888"),
    ],
)
def test_druid_namespace_always_names_host_and_port(url: str, namespace: str) -> None:
    assert druid_namespace(url) == namespace


def test_druid_namespace_without_a_host_names_the_value() -> None:
    with pytest.raises(ValueError, match=r"'http://' has no host"):
        druid_namespace("http://")


def test_the_output_is_the_datasource_of_the_cluster() -> None:
    assert druid_dataset(CLUSTER, "events_web") == D("druid://router.example:8888", "events_web")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ({"type": "local", "baseDir": "/data/events/2026-11-01/", "filter": "*.json"},
         [D("file", "/data/events/2026-11-01")]),
        ({"type": "local", "files": ["file:///a/1.json", "/a/2.json", "/a/2.json"]},
         [D("file", "/a/1.json"), D("file", "/a/2.json")]),
        ({"type": "s3", "uris": ["s3://bkt/events/2026-11-01/part-0.json"]},
         [D("s3://bkt", "events/2026-11-01/part-0.json")]),
        ({"type": "s3", "prefixes": ["s3://bkt/events/", "s3://other/"]},
         [D("s3://bkt", "events"), D("s3://other", "/")]),
        ({"type": "s3", "objects": [{"bucket": "bkt", "path": "/x/y.json"}]}, [D("s3://bkt", "x/y.json")]),
        ({"type": "google", "uris": ["gs://gbkt/p/q.parquet"], "objects": [{"bucket": "g2", "path": "r"}]},
         [D("gs://gbkt", "p/q.parquet"), D("gs://g2", "r")]),
        ({"type": "azureStorage", "prefixes": ["azureStorage://acct/cont/events/"],
          "objects": [{"bucket": "acct", "path": "cont/one.json"}]},
         [D("wasbs://cont@acct.blob.core.windows.net", "events"),
          D("wasbs://cont@acct.blob.core.windows.net", "one.json")]),
        ({"type": "azure", "uris": ["azure://cont/events/a.json"]}, [D("azure://cont", "events/a.json")]),
        ({"type": "http", "uris": ["https://user:pw@files.example:8443/e/a.json?sig=SECRET#x",
                                   "http://files.example/b.json"]},
         [D("https://files.example:8443", "/e/a.json"), D("http://files.example", "/b.json")]),
        ({"type": "hdfs", "paths": "hdfs://nn:8020/e/a, /plain/b"},
         [D("hdfs://nn:8020", "/e/a"), D("hdfs", "/plain/b")]),
        ({"type": "oss", "uris": ["oss://obkt/k.json"]}, [D("oss://obkt", "k.json")]),
        ({"type": "druid", "dataSource": "old_events", "interval": "2026-01-01/2026-02-01"},
         [D("druid://router.example:8888", "old_events")]),
        ({"type": "combining", "delegates": [{"type": "inline", "data": "{}"},
                                             {"type": "s3", "uris": ["s3://bkt/a.json"]},
                                             {"type": "local", "baseDir": "/d", "filter": "*"}]},
         [D("s3://bkt", "a.json"), D("file", "/d")]),
        ({"type": "inline", "data": '{"ts": "2026-01-01"}'}, []),
        ({"type": "sql", "database": {"type": "mysql"}, "sqls": ["SELECT 1"]}, []),
        ({"type": "some_extension"}, []),
        (None, []),
    ],
    ids=["local-dir", "local-files", "s3-uri", "s3-prefixes", "s3-objects", "gcs", "azureStorage", "azure", "http",
         "hdfs", "oss", "druid-reindex", "combining", "inline", "sql", "unknown", "none"],
)
def test_input_sources_map_to_openlineage_datasets(source: object, expected: list[DatasetRef]) -> None:
    assert input_datasets(source, CLUSTER) == expected


def test_http_credentials_and_tokens_never_reach_a_dataset_name() -> None:
    refs = input_datasets({"type": "http", "uris": ["https://user:pw@h.example/a?token=SECRET"]})
    assert "pw" not in repr(refs) and "SECRET" not in repr(refs) and "user" not in repr(refs)


def test_a_reindex_without_the_cluster_url_names_no_input() -> None:
    assert input_datasets({"type": "druid", "dataSource": "old"}) == []


def test_spec_inputs_read_the_task_or_the_bare_ingestion_spec() -> None:
    io = {"ioConfig": {"type": "index_parallel", "inputSource": {"type": "s3", "uris": ["s3://b/k"]}}}
    assert spec_input_datasets({"type": "index_parallel", "spec": io}) == [D("s3://b", "k")]
    assert spec_input_datasets(io) == [D("s3://b", "k")]
    assert spec_input_datasets({"type": "index_parallel", "spec": {"ioConfig": "broken"}}) == []
