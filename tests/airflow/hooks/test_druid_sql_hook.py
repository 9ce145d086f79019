"""common.sql on a ``druid_cluster`` connection, against the fake Broker: the operators resolve DruidSqlHook
from the connection type and run through the core's Druid SQL call (parameters, context, types, errors)."""

from __future__ import annotations

import json
import sys

import pytest
from airflow.providers.common.sql.operators.sql import (
    SQLCheckOperator,
    SQLExecuteQueryOperator,
    SQLValueCheckOperator,
)
from druid_ingest.errors import DruidValidationError
from druid_ingest.testing import Fault

from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.hooks.druid_sql import DruidSqlHook

from ..conftest import conn_json


def sql_bodies(fake) -> list[dict]:
    return [r.json for r in fake.requests_matching("POST", "/druid/v2/sql")]


def test_the_connection_types_hook_is_a_dbapi_hook_and_a_druid_hook(druid_conn):
    from airflow.providers.common.sql.hooks.sql import DbApiHook
    from airflow.sdk import BaseHook

    hook = SQLCheckOperator(task_id="c", sql="SELECT 1", conn_id="druid_cluster_default").get_db_hook()
    assert isinstance(hook, DruidSqlHook) and isinstance(hook, DbApiHook) and isinstance(hook, DruidHook)
    assert type(BaseHook.get_connection("druid_cluster_default").get_hook()) is DruidSqlHook
    with hook.get_client() as client:  # everything DruidHook does still works on it
        assert client.health()


def test_value_check_passes_and_fails_with_both_numbers(druid_conn):
    ok = SQLValueCheckOperator(task_id="ok", conn_id="druid_cluster_default", sql="SELECT ? AS n",
                               parameters=[2000], pass_value=2000)
    ok.execute({})
    bad = SQLValueCheckOperator(task_id="bad", conn_id="druid_cluster_default", sql="SELECT ? AS n",
                                parameters=[1712], pass_value=2000)
    with pytest.raises(Exception, match=r"(?s)Pass value:2000\.0.*Results:\n\(1712,\)"):
        bad.execute({})
    assert [b["parameters"] for b in sql_bodies(druid_conn)] == [[{"type": "BIGINT", "value": 2000}],
                                                                 [{"type": "BIGINT", "value": 1712}]]


def test_check_operator_fails_on_a_false_row(druid_conn):
    SQLCheckOperator(task_id="t", conn_id="druid_cluster_default", sql="SELECT TRUE AS a, 1 AS b").execute({})
    with pytest.raises(Exception, match=r"(?s)Test failed.*Query:\nSELECT TRUE AS a, 0 AS b\nResults:\n\(True, 0\)"):
        SQLCheckOperator(task_id="f", conn_id="druid_cluster_default", sql="SELECT TRUE AS a, 0 AS b").execute({})


def test_query_context_from_the_extra_and_the_hook_params(fake, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT",
                       conn_json(fake.url, context={"priority": 3, "timeout": 1000}, verify=True, read_timeout=30,
                                 trusted_hosts="a:1"))  # every extra becomes a hook kwarg in common.sql
    op = SQLExecuteQueryOperator(task_id="q", conn_id="druid_cluster_default", sql="SELECT 1 AS one",
                                 hook_params={"context": {"timeout": 5000, "sqlTimeZone": "Europe/Berlin"}})
    assert op.execute({}) == [(1,)]
    assert sql_bodies(fake)[-1]["context"] == {"priority": 3, "timeout": 5000, "sqlTimeZone": "Europe/Berlin"}
    assert op.get_db_hook().last_description == (("one", "INTEGER", None, None, None, None, None),)


def test_a_context_that_is_not_an_object_is_refused_naming_it(fake, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url, context="timeout=5"))
    with pytest.raises(ValueError, match=r"connection extra 'context'='timeout=5': expected a JSON object"):
        DruidSqlHook().get_first("SELECT 1")
    with pytest.raises(ValueError, match=r"Druid SQL context='\[1\]': expected a JSON object"):
        DruidSqlHook(context=json.dumps([1]))


def test_a_druid_sql_error_fails_the_check_with_druids_message(druid_conn):
    op = SQLCheckOperator(task_id="e", conn_id="druid_cluster_default", sql="SELECT nope")
    with pytest.raises(DruidValidationError, match=r"Column 'nope' not found in any table"):
        op.execute({})


def test_a_query_over_a_datasource_reads_the_array_answer(druid_conn):
    druid_conn.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200,
                               body='[["day","n"],["STRING","LONG"],["VARCHAR","BIGINT"],["2026-11-01",2000],'
                                    '["2026-11-02",1999]]', content_type="application/json"))
    hook = DruidSqlHook()
    rows = hook.get_records('SELECT TIME_FORMAT(__time, \'yyyy-MM-dd\') AS "day", COUNT(*) AS n FROM "ev" '
                            "GROUP BY 1")
    assert rows == [("2026-11-01", 2000), ("2026-11-02", 1999)]
    assert hook.last_description[1][:2] == ("n", "BIGINT")


def test_get_df_without_pandas_or_polars_says_what_to_install(druid_conn, monkeypatch):
    from airflow.providers.common.compat.sdk import AirflowOptionalProviderFeatureException

    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(AirflowOptionalProviderFeatureException, match=r"needs pandas, which is not installed: "
                                                                     r"pip install pandas"):
        DruidSqlHook().get_df("SELECT 1 AS a")
    with pytest.raises(AirflowOptionalProviderFeatureException, match="needs polars"):
        DruidSqlHook().get_df("SELECT 1 AS a", df_type="polars")
    assert sql_bodies(druid_conn) == []


def test_get_df_pandas_keeps_names_order_and_values(druid_conn):
    import pandas as pd
    df = DruidSqlHook().get_df("SELECT ? AS country, 3 AS n, NULL AS z", ["DE"])
    assert list(df.columns) == ["country", "n", "z"]
    assert df.to_dict("records") == [{"country": "DE", "n": 3, "z": None}]
    assert isinstance(df, pd.DataFrame)


def test_get_df_polars(druid_conn):
    import polars as pl
    df = DruidSqlHook().get_df("SELECT ? AS country, 3 AS n", ["DE"], df_type="polars")
    assert isinstance(df, pl.DataFrame) and df.columns == ["country", "n"] and df.rows() == [("DE", 3)]


def test_insert_rows_is_refused_with_the_way_to_ingest(druid_conn):
    with pytest.raises(NotImplementedError, match="DruidIngestOperator or DruidMsqIngestOperator"):
        DruidSqlHook().insert_rows("t", [(1,)])


def test_the_uri_names_the_sql_entry_point_without_credentials(druid_conn):
    uri = DruidSqlHook().get_uri()
    assert uri == f"druid://{druid_conn.url.split('://')[1]}/druid/v2/sql" and "s3cr3t" not in uri


def test_the_test_button_also_runs_select_1(druid_conn):
    ok, message = DruidSqlHook().test_connection()
    assert ok and message.endswith("; Druid SQL answers")
    druid_conn.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=404, body="{}",
                               content_type="application/json", times=None))
    ok, message = DruidSqlHook().test_connection()
    assert ok and "note: Druid SQL (SELECT 1) failed: Druid endpoint or object not found" in message
