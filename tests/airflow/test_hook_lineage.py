"""Hook-level lineage: the hooks' submit and SQL calls report assets to Airflow's HookLineageCollector."""

from __future__ import annotations

import logging

import pytest
from druid_ingest.planning import DatasetRef
from druid_ingest.testing import Fault

from airflow_provider_druid_ingest.common.hook_lineage import input_uris, sql_datasources
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.hooks.druid_sql import DruidSqlHook
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator

from .helpers import spec

COUNT = '[["n"],["LONG"],["BIGINT"],[2000]]'


@pytest.fixture
def collector(monkeypatch):
    """A real collector in place of the no-op one Airflow hands out when no lineage reader is registered."""
    import airflow.providers.common.compat.lineage.hook as compat
    import airflow.providers.common.sql.hooks.lineage as sql_lineage
    from airflow.sdk.lineage import HookLineageCollector

    real = HookLineageCollector()
    monkeypatch.setattr(compat, "get_hook_lineage_collector", lambda: real)
    monkeypatch.setattr(sql_lineage, "get_hook_lineage_collector", lambda: real)
    return real


def uris(infos) -> list[str]:
    return [info.asset.uri for info in infos]


def test_the_submit_reports_the_datasource_as_output_and_the_input_source_as_input(druid_conn, context, collector):
    body = spec()
    body["spec"]["ioConfig"]["inputSource"] = {"type": "local", "baseDir": "/data/events/2026-07-16",
                                               "filter": "*.json"}
    DruidSubmitOperator(task_id="s", spec=body).execute(context)
    seen = collector.collected_assets
    assert uris(seen.outputs) == ["druid://druid_cluster_default/wiki"]
    assert uris(seen.inputs) == ["file:///data/events/2026-07-16"]
    assert isinstance(seen.outputs[0].context, DruidHook)


def test_an_adopted_task_reports_the_same_assets_again(druid_conn, context, collector):
    DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    DruidSubmitOperator(task_id="s", spec=spec()).execute(context)  # adopts: no second POST
    assert [uris([o]) for o in collector.collected_assets.outputs] == [["druid://druid_cluster_default/wiki"]] * 2


def test_common_sql_statements_report_the_datasources_they_read(druid_conn, collector):
    druid_conn.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200, body=COUNT,
                               content_type="application/json"))
    hook = DruidSqlHook(context={"sqlQueryId": "q-7"})
    assert hook.get_first('SELECT COUNT(*) AS n FROM "events_web" WHERE __time >= ?', ["2026-11-01"]) == (2000,)
    assert hook.get_first("SELECT 1 AS one") == (1,)  # the fake Broker answers with the context's query id
    seen = collector.collected_assets
    assert uris(seen.inputs) == ["druid://druid_cluster_default/events_web"]
    assert seen.inputs[0].context is hook
    jobs = [e.value for e in seen.extra if e.key == "sql_job"]
    assert jobs == [{"sql": 'SELECT COUNT(*) AS n FROM "events_web" WHERE __time >= ?',
                     "sql_parameters": ["2026-11-01"], "row_count": 1},
                    {"sql": "SELECT 1 AS one", "job_id": "q-7", "row_count": 1}]


def test_druid_hook_sql_reports_its_inputs_and_the_sql_job(druid_conn, collector):
    druid_conn.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200,
                               body='[{"n": 5}]', content_type="application/json"))
    assert DruidHook().sql('SELECT COUNT(*) AS n FROM druid."web-2" JOIN lookup.pages ON 1=1') == [{"n": 5}]
    seen = collector.collected_assets
    assert uris(seen.inputs) == ["druid://druid_cluster_default/web-2"]  # a lookup is not a datasource
    assert [e.value["row_count"] for e in seen.extra if e.key == "sql_job"] == [1]


def test_a_failing_collector_never_fails_the_call(druid_conn, context, monkeypatch, caplog):
    import airflow.providers.common.compat.lineage.hook as compat

    def broken():
        raise RuntimeError("collector down")

    monkeypatch.setattr(compat, "get_hook_lineage_collector", broken)
    with caplog.at_level(logging.WARNING):
        assert DruidSubmitOperator(task_id="s", spec=spec()).execute(context)
    assert "lineage of the submit into wiki was not reported: RuntimeError: collector down" in caplog.text


def test_input_refs_become_asset_uris():
    refs = [DatasetRef("file", "/data/a"), DatasetRef("s3://bucket", "events/2026"), DatasetRef("gs://b", "/"),
            DatasetRef("druid://router:8888", "src"), DatasetRef("hdfs", "/no/authority"),
            DatasetRef("https://files.example.com", "/x.json"), DatasetRef("file", "/data/a")]
    assert input_uris(refs, "c1") == ["file:///data/a", "s3://bucket/events/2026", "gs://b/",
                                      "druid://c1/src", "https://files.example.com/x.json"]


def test_system_tables_are_not_datasources():
    assert sql_datasources("SELECT * FROM sys.segments JOIN INFORMATION_SCHEMA.COLUMNS ON 1=1") == []
    assert sql_datasources("SELECT 1") == []
    assert sql_datasources("not sql at all (") == []


def test_the_druid_scheme_has_a_factory_and_an_openlineage_converter_named_like_the_facets(druid_conn, collector):
    from airflow.providers.openlineage.utils.utils import translate_airflow_asset
    from airflow.sdk.providers_manager_runtime import ProvidersManagerTaskRuntime
    from druid_ingest.planning import druid_dataset

    pm = ProvidersManagerTaskRuntime()
    assert "druid" in pm.asset_factories and "druid" in pm.asset_to_openlineage_converters
    asset = collector.create_asset(scheme="druid", asset_kwargs={"conn_id": "druid_cluster_default",
                                                                  "datasource": "events_web"})
    assert asset.uri == "druid://druid_cluster_default/events_web"
    want = druid_dataset(druid_conn.url, "events_web")
    for context in (DruidHook(), None):  # from the reporting hook, else from the connection the URI names
        dataset = translate_airflow_asset(asset, context)
        assert (dataset.namespace, dataset.name) == (want.namespace, want.name)
