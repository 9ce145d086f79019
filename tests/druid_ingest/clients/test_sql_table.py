"""``sql_table``: Druid SQL with the query context, answered as a table (names, types, rows), both clients."""

from __future__ import annotations

import pytest
from druid_ingest.api import SqlResult
from druid_ingest.errors import DruidProtocolError, DruidValidationError
from druid_ingest.testing import Fault


def test_parameters_and_context_are_sent_and_the_table_comes_back_typed(make_client, fake_druid):
    client = make_client()
    result = client.sql_table("SELECT ? AS country, ? AS n, 2.5 AS x, NULL AS gone",
                              [{"type": "VARCHAR", "value": "DE"}, {"type": "BIGINT", "value": 7}],
                              {"sqlQueryId": "q-42", "priority": 10})
    assert result == SqlResult(columns=("country", "n", "x", "gone"),
                               druid_types=("STRING", "LONG", "DOUBLE", "STRING"),
                               sql_types=("CHAR", "INTEGER", "DECIMAL", "NULL"),
                               rows=(("DE", 7, 2.5, None),), query_id="q-42")
    body = fake_druid.requests_matching("POST", "/druid/v2/sql")[-1].json
    assert body["context"] == {"sqlQueryId": "q-42", "priority": 10}
    assert body["parameters"] == [{"type": "VARCHAR", "value": "DE"}, {"type": "BIGINT", "value": 7}]
    assert (body["resultFormat"], body["header"], body["typesHeader"], body["sqlTypesHeader"]) == \
        ("array", True, True, True)


def test_no_context_sends_none(make_client, fake_druid):
    make_client().sql_table("SELECT 1 AS one")
    assert "context" not in fake_druid.requests_matching("POST", "/druid/v2/sql")[-1].json


def test_an_empty_answer_keeps_its_columns(make_client, fake_druid):
    fake_druid.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200,
                               body='[["a","b"],["LONG","STRING"],["BIGINT","VARCHAR"]]',
                               content_type="application/json"))
    result = make_client().sql_table('SELECT a, b FROM "t" WHERE FALSE')
    assert (result.columns, result.rows) == (("a", "b"), ())


def test_a_sql_error_carries_druids_message(make_client):
    with pytest.raises(DruidValidationError, match=r"Column 'nope' not found in any table \(line \[1\], column "
                                                   r"\[8\]\)"):
        make_client().sql_table("SELECT nope")


def test_a_missing_parameter_is_druids_message(make_client):
    with pytest.raises(DruidValidationError, match=r"No value bound for parameter \(position \[2\]\)"):
        make_client().sql_table("SELECT ? AS a, ? AS b", [{"type": "VARCHAR", "value": "x"}])


def test_an_answer_without_header_rows_is_a_protocol_error(make_client, fake_druid):
    fake_druid.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200,
                               body='[{"a": 1}]', content_type="application/json"))
    with pytest.raises(DruidProtocolError, match="header rows"):
        make_client().sql_table("SELECT 1 AS a")


def test_an_empty_query_is_refused_before_any_call(make_client, fake_druid):
    with pytest.raises(ValueError, match="query=' ': expected a non-empty SQL statement"):
        make_client().sql_table(" ")
    assert fake_druid.requests_matching("POST", "/druid/v2/sql") == []
