"""Template loading, Jinja2 rendering and per-run injection of intervals, datasource and locations."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.errors import SpecValidationError
from druid_ingest.planning.spec import find_problems, load_template, render_spec

BARE: dict[str, Any] = {
    "dataSchema": {
        "dataSource": "events_web",
        "timestampSpec": {"column": "event_ts", "format": "iso"},
        "dimensionsSpec": {"dimensions": ["country"]},
        "granularitySpec": {"segmentGranularity": "DAY", "queryGranularity": "NONE"},
    },
    "ioConfig": {
        "type": "index_parallel",
        "inputSource": {"type": "s3", "prefixes": ["s3://lake/old/"]},
        "inputFormat": {"type": "json"},
        "appendToExisting": False,
        "dropExisting": True,
    },
    "tuningConfig": {"type": "index_parallel", "maxNumConcurrentSubTasks": 2},
}
TASK: dict[str, Any] = {"type": "index_parallel", "spec": BARE}

TEXT_TEMPLATE = """{
  "type": "index_parallel",
  "spec": {
    "dataSchema": {
      "dataSource": "{{ datasource }}",
      "timestampSpec": {"column": "ts"},
      "dimensionsSpec": {"dimensions": {{ dims | tojson }}},
      "granularitySpec": {"segmentGranularity": "{{ grain | default('DAY') }}"}
    },
    "ioConfig": {
      "type": "index_parallel",
      "inputSource": {"type": "local", "baseDir": "/tmp", "filter": "*.json"},
      "inputFormat": {"type": "json"}
    },
    "tuningConfig": {"type": "index_parallel"}
  }
}"""


def with_source(source: dict[str, Any]) -> dict[str, Any]:
    task = copy.deepcopy(TASK)
    task["spec"]["ioConfig"]["inputSource"] = source
    return task


def source_of(spec: dict[str, Any]) -> dict[str, Any]:
    return spec["spec"]["ioConfig"]["inputSource"]


# ---- loading --------------------------------------------------------------------------------------------


def test_load_dict_is_deep_copied() -> None:
    loaded = load_template(TASK)
    assert loaded == TASK and loaded is not TASK
    assert loaded["spec"] is not TASK["spec"]


def test_load_json_text_and_template_text() -> None:
    assert load_template(json.dumps(TASK)) == TASK
    assert isinstance(load_template(TEXT_TEMPLATE), str)
    # JSON that carries Jinja markup stays text so its variables get rendered
    assert isinstance(load_template('{"dataSource": "{{ ds }}"}'), str)


def test_load_from_path(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(TASK))
    assert load_template(path) == TASK
    assert load_template(str(path)) == TASK
    template = tmp_path / "spec.json.j2"
    template.write_text(TEXT_TEMPLATE)
    assert load_template(str(template)) == TEXT_TEMPLATE
    with pytest.raises(FileNotFoundError):
        load_template(str(tmp_path / "missing.json"))


def test_render_from_template_file(tmp_path: Path) -> None:
    template = tmp_path / "spec.json.j2"
    template.write_text(TEXT_TEMPLATE)
    spec = render_spec(template, variables={"datasource": "ds1", "dims": ["a"]})
    assert spec["spec"]["dataSchema"]["dataSource"] == "ds1"


# ---- rendering ------------------------------------------------------------------------------------------


def test_text_template_rendered() -> None:
    spec = render_spec(TEXT_TEMPLATE, variables={"datasource": "clicks", "dims": ["a", "b"], "grain": "HOUR"})
    data_schema = spec["spec"]["dataSchema"]
    assert data_schema["dataSource"] == "clicks"
    assert data_schema["dimensionsSpec"]["dimensions"] == ["a", "b"]
    assert data_schema["granularitySpec"]["segmentGranularity"] == "HOUR"


def test_strict_undefined_names_missing_variable() -> None:
    with pytest.raises(SpecValidationError) as info:
        render_spec(TEXT_TEMPLATE, variables={"datasource": "clicks"})
    assert "'dims' is undefined" in str(info.value)


def test_jinja_syntax_error_reports_line() -> None:
    with pytest.raises(SpecValidationError, match="line 2"):
        render_spec('{\n "a": "{{ x }"\n}', variables={"x": 1})


def test_invalid_json_after_render_shows_line_and_column() -> None:
    text = '{\n  "type": "index_parallel",\n  "spec": {"dataSchema": {{ ds }}}\n}'
    with pytest.raises(SpecValidationError) as info:
        render_spec(text, variables={"ds": "oops"})
    message = str(info.value)
    assert "line 3, column" in message
    assert '"spec": {"dataSchema": oops}' in message
    assert "^" in message


def test_dict_template_strings_are_not_rendered() -> None:
    task = copy.deepcopy(TASK)
    task["spec"]["dataSchema"]["dataSource"] = "{{ ds }}"
    spec = render_spec(task, variables={"ds": "clicks"})
    assert spec["spec"]["dataSchema"]["dataSource"] == "{{ ds }}"


def test_template_must_produce_object() -> None:
    with pytest.raises(SpecValidationError, match=r"\$: the template must produce a JSON object"):
        render_spec("[1, 2]")


# ---- injection -------------------------------------------------------------------------------------------


def test_intervals_and_datasource_injected_without_mutating_input() -> None:
    before = copy.deepcopy(TASK)
    spec = render_spec(TASK, datasource="events_web_v2", intervals=["2026-07-16/P1D"])
    assert spec["spec"]["dataSchema"]["dataSource"] == "events_web_v2"
    assert spec["spec"]["dataSchema"]["granularitySpec"]["intervals"] == ["2026-07-16/P1D"]
    assert spec["spec"]["dataSchema"]["granularitySpec"]["segmentGranularity"] == "DAY"
    assert before == TASK
    assert find_problems(spec) == []


def test_granularity_spec_created_when_missing() -> None:
    task = copy.deepcopy(TASK)
    del task["spec"]["dataSchema"]["granularitySpec"]
    spec = render_spec(task, intervals=["2026-07-16/2026-07-17"])
    assert spec["spec"]["dataSchema"]["granularitySpec"] == {"intervals": ["2026-07-16/2026-07-17"]}
    assert "granularitySpec" not in task["spec"]["dataSchema"]


def test_bare_spec_is_wrapped() -> None:
    before = copy.deepcopy(BARE)
    spec = render_spec(BARE, intervals=["2026-07-16/P1D"])
    assert spec["type"] == "index_parallel"
    assert spec["spec"]["ioConfig"] == BARE["ioConfig"]
    assert before == BARE


def test_bare_index_spec_keeps_index_type() -> None:
    bare = copy.deepcopy(BARE)
    bare["ioConfig"]["type"] = "index"
    assert render_spec(bare)["type"] == "index"


def test_s3_prefixes() -> None:
    spec = render_spec(TASK, input_locations=["s3://lake/a/", "s3://lake/b/"])
    assert source_of(spec) == {"type": "s3", "prefixes": ["s3://lake/a/", "s3://lake/b/"]}


def test_s3_uris_replace_prefixes() -> None:
    spec = render_spec(TASK, input_locations=["s3://lake/a/part-0.json"])
    assert source_of(spec) == {"type": "s3", "uris": ["s3://lake/a/part-0.json"]}


def test_s3_keeps_other_keys() -> None:
    task = with_source({"type": "s3", "uris": ["s3://x/y"], "objectGlob": "**.json", "properties": {"a": 1}})
    spec = render_spec(task, input_locations=["s3://lake/day/"])
    assert source_of(spec) == {
        "type": "s3",
        "prefixes": ["s3://lake/day/"],
        "objectGlob": "**.json",
        "properties": {"a": 1},
    }


def test_gs_uris() -> None:
    spec = render_spec(with_source({"type": "google"}), input_locations=["gs://bucket/file.json"])
    assert source_of(spec) == {"type": "google", "uris": ["gs://bucket/file.json"]}


def test_azure_storage_prefixes() -> None:
    spec = render_spec(with_source({"type": "azureStorage"}), input_locations=["azureStorage://acct/cont/p/"])
    assert source_of(spec)["prefixes"] == ["azureStorage://acct/cont/p/"]


@pytest.mark.parametrize(
    ("source_type", "location", "valid"),
    [
        ("s3", "gs://bucket/x/", "s3://..."),
        ("google", "s3://bucket/file.json", "gs://..."),
        ("azureStorage", "azure://cont/file.json", "azureStorage://..."),
        ("azure", "https://acct.blob.core.windows.net/c/f", "azure://..."),
    ],
)
def test_bad_scheme(source_type: str, location: str, valid: str) -> None:
    with pytest.raises(SpecValidationError) as info:
        render_spec(with_source({"type": source_type}), input_locations=[location])
    problem = info.value.problems[0]
    assert problem.path.startswith("spec.ioConfig.inputSource.")
    assert problem.path.endswith("[0]")
    assert valid in str(problem)


def test_bad_scheme_reports_every_location() -> None:
    with pytest.raises(SpecValidationError) as info:
        render_spec(TASK, input_locations=["s3://ok/a", "gs://bad/b", "/local/c"])
    assert [p.path for p in info.value.problems] == [
        "spec.ioConfig.inputSource.uris[1]",
        "spec.ioConfig.inputSource.uris[2]",
    ]


def test_mixed_prefixes_and_uris_rejected() -> None:
    with pytest.raises(SpecValidationError, match="mix prefixes"):
        render_spec(TASK, input_locations=["s3://lake/a/", "s3://lake/b.json"])


def test_local_single_location_is_base_dir_keeping_filter() -> None:
    spec = render_spec(
        with_source({"type": "local", "baseDir": "/old", "filter": "*.json"}), input_locations=["/data/2026-07-16"]
    )
    assert source_of(spec) == {"type": "local", "baseDir": "/data/2026-07-16", "filter": "*.json"}


def test_local_default_filter_and_file_scheme() -> None:
    spec = render_spec(with_source({"type": "local", "files": ["/x"]}), input_locations=["file:///data/day"])
    assert source_of(spec) == {"type": "local", "baseDir": "/data/day", "filter": "*"}


def test_local_several_locations_are_files() -> None:
    spec = render_spec(
        with_source({"type": "local", "baseDir": "/old", "filter": "*"}),
        input_locations=["/data/a.json", "/data/b.json"],
    )
    assert source_of(spec) == {"type": "local", "files": ["/data/a.json", "/data/b.json"]}


def test_http_uris() -> None:
    spec = render_spec(
        with_source({"type": "http", "uris": ["http://old"]}), input_locations=["https://example.com/a.json"]
    )
    assert source_of(spec)["uris"] == ["https://example.com/a.json"]
    with pytest.raises(SpecValidationError, match=r"uris\[0\]"):
        render_spec(with_source({"type": "http"}), input_locations=["ftp://example.com/a.json"])


def test_hdfs_paths() -> None:
    spec = render_spec(with_source({"type": "hdfs"}), input_locations=["hdfs://nn/data/day/"])
    assert source_of(spec)["paths"] == ["hdfs://nn/data/day/"]


@pytest.mark.parametrize("source_type", ["inline", "druid"])
def test_locationless_sources_reject_locations(source_type: str) -> None:
    with pytest.raises(SpecValidationError) as info:
        render_spec(with_source({"type": source_type}), input_locations=["s3://x/"])
    assert info.value.problems[0].path == "spec.ioConfig.inputSource.type"
    assert "takes no input locations" in str(info.value)


def test_locations_need_an_input_source_type() -> None:
    task = copy.deepcopy(TASK)
    del task["spec"]["ioConfig"]["inputSource"]
    with pytest.raises(SpecValidationError, match=r"spec\.ioConfig\.inputSource\.type"):
        render_spec(task, input_locations=["s3://x/"])


def test_empty_locations_rejected() -> None:
    with pytest.raises(SpecValidationError, match="at least one location"):
        render_spec(TASK, input_locations=[])


def test_render_returns_new_dict_each_time() -> None:
    first = render_spec(TASK, intervals=["2026-07-16/P1D"])
    first["spec"]["dataSchema"]["dataSource"] = "changed"
    assert render_spec(TASK)["spec"]["dataSchema"]["dataSource"] == "events_web"


def test_strict_undefined_plain_expression() -> None:
    with pytest.raises(SpecValidationError) as info:
        render_spec(TEXT_TEMPLATE, variables={"dims": ["a"]})
    assert "'datasource' is undefined" in str(info.value)
