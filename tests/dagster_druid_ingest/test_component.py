"""The Components loaded from ``defs.yaml``: the example dg project, credentials by variable name only, the
alignment refusal naming ``partitions``, the entry point dg reads, and an MSQ component run on the fake Druid."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg
import dagster_druid_ingest
import pytest
from dagster.components.core.package_entry import DG_PLUGIN_ENTRY_POINT_GROUP, get_package_objects_in_module
from druid_ingest.testing import FakeDruid

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "examples/dagster/druid_project"
DAGSTER = str(Path(sys.executable).with_name("dagster"))
SPEC = ROOT / "dags/specs/events_web.json"
SQL = PROJECT / "src/druid_project/defs/events_msq/events_hourly.sql"
ENV = {"DRUID_URL": "http://druid.invalid:8888", "DRUID_USER": "admin", "DRUID_PASSWORD": "never-in-config-42",
       "DRUID_EVENTS_DATASOURCE": "dgc_events", "DRUID_EVENTS_ROOT": "/srv/events"}


def project(tmp_path: Path, name: str, yaml_by_folder: dict[str, str]) -> Path:
    """A throwaway dg project ``name`` with one defs.yaml per folder."""
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.dg]\ndirectory_type = "project"\n[tool.dg.project]\nroot_module = "{name}"\n')
    defs = tmp_path / "src" / name / "defs"
    defs.mkdir(parents=True)
    (defs.parent / "__init__.py").write_text("")
    (defs / "__init__.py").write_text("")
    for folder, text in yaml_by_folder.items():
        (defs / folder).mkdir()
        (defs / folder / "defs.yaml").write_text(textwrap.dedent(text))
    return tmp_path / "src" / name


def chain(exc: BaseException | None) -> str:
    """The text of an error and of every error it was raised from (Dagster wraps a component's error)."""
    texts = []
    while exc is not None:
        texts.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    return "\n".join(texts)


def load(where: Path, monkeypatch: pytest.MonkeyPatch) -> dg.Definitions:
    monkeypatch.syspath_prepend(str(where.parent))
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    return dg.load_from_defs_folder(path_within_project=where)


def test_the_example_project_loads_from_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    defs = load(PROJECT / "src/druid_project", monkeypatch)
    daily = defs.resolve_assets_def("dgc_events")
    (spec,) = daily.specs
    assert spec.group_name == "druid" and spec.owners == ["team:data-platform"] and spec.tags["layer"] == "raw"
    assert spec.kinds == {"druid"} and spec.metadata["druid/flavour"] == "native"
    assert isinstance(daily.partitions_def, dg.DailyPartitionsDefinition)
    msq = defs.resolve_assets_def("dgc_events_msq")
    assert isinstance(msq.partitions_def, dg.HourlyPartitionsDefinition)
    assert msq.specs_by_key[msq.key].metadata["druid/flavour"] == "msq"
    assert {k.name for c in defs.asset_checks or [] for k in c.check_keys} == {"segments_queryable"}
    resource = (defs.resources or {})["druid"]
    # only the variables' names are in the resource's config: the password never enters Dagster's config
    assert "never-in-config-42" not in repr(resource._get_non_default_public_field_values())
    assert isinstance(resource.password, dg.EnvVar) and resource.password == "DRUID_PASSWORD"


def test_dagster_definitions_validate_passes_on_the_example_project(tmp_path: Path) -> None:
    (tmp_path / "dagster.yaml").write_text("")
    packages = ROOT / "packages"
    path = os.pathsep.join(str(p) for p in (ROOT, packages / "druid-ingest", packages / "dagster-druid-ingest"))
    out = subprocess.run([DAGSTER, "definitions", "validate", "-m", "druid_project.definitions", "-d",
                          str(PROJECT / "src")], capture_output=True, text=True, timeout=180,
                         env={**os.environ, **ENV, "DAGSTER_HOME": str(tmp_path), "PYTHONPATH": path})
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "All code locations passed validation" in out.stdout + out.stderr


def test_a_literal_password_is_refused_when_the_yaml_loads(tmp_path: Path, monkeypatch) -> None:
    where = project(tmp_path, "dgc_secret", {"events": f"""
        type: dagster_druid_ingest.DruidIngestComponent
        attributes:
          connection: {{url_env: DRUID_URL, password: hunter2}}
          spec: {SPEC}
          partitions: {{type: daily, start_date: "2026-11-01"}}
        """})
    with pytest.raises(Exception) as info:
        load(where, monkeypatch)
    assert "password" in chain(info.value) and "Extra inputs are not permitted" in chain(info.value)


def test_unaligned_partitions_in_yaml_are_refused_naming_the_partitions_field(tmp_path, monkeypatch) -> None:
    where = project(tmp_path, "dgc_unaligned", {"events": f"""
        type: dagster_druid_ingest.DruidIngestComponent
        attributes:
          connection: {{url_env: DRUID_URL}}
          spec: {SPEC}
          datasource: dgc_unaligned
          partitions: {{type: daily, start_date: "2026-11-01", timezone: Asia/Kolkata}}
        """})
    with pytest.raises(Exception) as info:
        load(where, monkeypatch)
    text = chain(info.value)
    assert "partitions: partition 2026-11-01 (2026-10-31T18:30:00Z/2026-11-01T18:30:00Z) is not aligned" in text
    assert "cron '0 0 * * *' in Asia/Kolkata" in text and "none of hourly, daily, weekly or monthly" in text


def test_the_components_are_found_through_the_dg_entry_point() -> None:
    found = dict(get_package_objects_in_module(dagster_druid_ingest))
    assert {"DruidIngestComponent", "DruidMsqIngestComponent"} <= set(found)
    text = (ROOT / "packages/dagster-druid-ingest/pyproject.toml").read_text()
    entry = f'[project.entry-points."{DG_PLUGIN_ENTRY_POINT_GROUP}"]\ndagster_druid_ingest = "dagster_druid_ingest"'
    assert entry in text


def test_an_msq_component_materializes_an_hour_on_the_fake_druid(tmp_path, monkeypatch, fake_druid: FakeDruid,
                                                                   ) -> None:
    where = project(tmp_path, "dgc_msq", {"events": """
        type: dagster_druid_ingest.DruidMsqIngestComponent
        attributes:
          connection: {url_env: DRUID_URL, poll_interval: 0.05, max_poll_interval: 0.2}
          sql: events.sql
          datasource: dgc_msq
          variables: {events_root: /srv/events}
          partitions: {type: hourly, start_date: "2026-11-01-00:00"}
        """})
    (where / "defs/events/events.sql").write_text(SQL.read_text())
    defs = load(where, monkeypatch)
    monkeypatch.setenv("DRUID_URL", fake_druid.url)
    job = dg.Definitions.merge(defs, dg.Definitions(jobs=[dg.define_asset_job("msq", selection=["dgc_msq"])]))
    result = job.resolve_job_def("msq").execute_in_process(partition_key="2026-11-03-05:00", raise_on_error=False)
    assert result.success
    (posted,) = fake_druid.requests_matching("POST", "/druid/v2/sql/task")
    assert "__time >= TIMESTAMP '2026-11-03 05:00:00' AND __time < TIMESTAMP '2026-11-03 06:00:00'" in posted.json[
        "query"]
    assert "/srv/events/2026-11-03" in posted.json["query"] and posted.json["context"]["failOnEmptyInsert"] is True
    (check,) = result.get_asset_check_evaluations()
    assert check.passed and check.partition == "2026-11-03-05:00"


def test_an_msq_statement_not_on_its_partitioned_by_buckets_is_refused(tmp_path, monkeypatch) -> None:
    where = project(tmp_path, "dgc_msq_day", {"events": """
        type: dagster_druid_ingest.DruidMsqIngestComponent
        attributes:
          connection: {url_env: DRUID_URL}
          sql: events.sql
          datasource: dgc_msq_day
          variables: {events_root: /srv/events}
          partitions: {type: hourly, start_date: "2026-11-01-00:00"}
        """})
    (where / "defs/events/events.sql").write_text(SQL.read_text().replace("PARTITIONED BY HOUR", "PARTITIONED BY DAY"))
    with pytest.raises(Exception) as info:
        load(where, monkeypatch)
    text = chain(info.value)
    assert "partitions: partition 2026-11-01-00:00" in text and "sql.PARTITIONED BY" in text
    assert "daily, weekly, weekly (day_offset: 1, Mondays), monthly in UTC" in text


def test_translation_in_yaml_sees_the_props_as_data(tmp_path, monkeypatch) -> None:
    where = project(tmp_path, "dgc_translation", {"events": f"""
        type: dagster_druid_ingest.DruidIngestComponent
        attributes:
          connection: {{url_env: DRUID_URL}}
          spec: {SPEC}
          datasource: dgc_tr
          partitions: {{type: daily, start_date: "2026-11-01"}}
          translation:
            key: "raw/{{{{ data.datasource }}}}_{{{{ data.flavour }}}}"
            group_name: druid
        """})
    defs = load(where, monkeypatch)
    asset = defs.resolve_assets_def(dg.AssetKey(["raw", "dgc_tr_native"]))
    assert asset.specs_by_key[asset.key].group_name == "druid"
    (check,) = defs.asset_checks or []
    assert {k.asset_key for k in check.check_keys} == {dg.AssetKey(["raw", "dgc_tr_native"])}


def test_the_connection_passes_detect_within_and_rejects_a_bad_one() -> None:
    from dagster_druid_ingest.component import DruidConnection
    from druid_ingest.errors import DruidUsageError

    assert DruidConnection(url="http://d", detect_within=20).resource().poll_schedule().detect_within == 20
    with pytest.raises(DruidUsageError, match=r"detect_within=-3"):
        DruidConnection(url="http://d", detect_within=-3).resource()
