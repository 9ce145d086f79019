"""The DB-API 2 connection over the core client, against the fake Broker: what is sent, what is read."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from druid_ingest.clients import connect, druid_parameters
from druid_ingest.errors import DruidUsageError, DruidValidationError
from druid_ingest.wire import ClusterConfig, RetryPolicy


@pytest.fixture
def conn(fake_druid):
    with connect(ClusterConfig(url=fake_druid.url, read_timeout=2.0), RetryPolicy(max_attempts=2),
                 {"sqlQueryId": "dbapi-1", "priority": 5}) as connection:
        yield connection


def sent(fake_druid) -> dict:
    return fake_druid.requests_matching("POST", "/druid/v2/sql")[-1].json


def test_execute_sends_positional_parameters_and_the_context(conn, fake_druid):
    cur = conn.cursor()
    cur.execute("SELECT ? AS country, ? AS n, ? AS ratio, ? AS ok", ("DE", 7, 0.5, True))
    assert sent(fake_druid)["parameters"] == [
        {"type": "VARCHAR", "value": "DE"}, {"type": "BIGINT", "value": 7},
        {"type": "DOUBLE", "value": 0.5}, {"type": "BOOLEAN", "value": True}]
    assert sent(fake_druid)["context"] == {"sqlQueryId": "dbapi-1", "priority": 5}
    assert cur.fetchall() == [("DE", 7, 0.5, True)]
    assert cur.query_id == "dbapi-1"


def test_description_names_the_columns_with_their_sql_types(conn):
    cur = conn.cursor()
    assert cur.description is None and cur.rowcount == -1
    cur.execute("SELECT 1 AS n, 'x' AS s, 2.5, NULL AS z")
    assert cur.description == (("n", "INTEGER", None, None, None, None, None),
                               ("s", "CHAR", None, None, None, None, None),
                               ("EXPR$2", "DECIMAL", None, None, None, None, None),
                               ("z", "NULL", None, None, None, None, None))
    assert cur.druid_types == ("LONG", "STRING", "DOUBLE", "STRING")
    assert cur.rowcount == 1


def test_fetchone_fetchmany_and_iteration_walk_the_rows(conn, fake_druid):
    from druid_ingest.testing import Fault

    fake_druid.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200,
                               body='[["d"],["LONG"],["BIGINT"],[1],[2],[3],[4]]', content_type="application/json"))
    cur = conn.cursor()
    cur.execute('SELECT d FROM "t"')
    assert cur.fetchone() == (1,)
    assert cur.fetchmany(2) == [(2,), (3,)]
    assert list(cur) == [(4,)]
    assert cur.fetchone() is None and cur.fetchall() == []


def test_a_druid_sql_error_surfaces_with_druids_message(conn):
    with pytest.raises(DruidValidationError, match=r"Druid rejected the request: Column 'nope' not found in any "
                                                   r"table \(line \[1\], column \[8\]\)"):
        conn.cursor().execute("SELECT nope")


def test_python_values_become_druid_dynamic_parameters():
    assert druid_parameters([None, Decimal("1.5"), dt.date(2026, 11, 1),
                             dt.datetime(2026, 11, 1, 1, 2, 3, tzinfo=dt.timezone(dt.timedelta(hours=1))),
                             dt.datetime(2026, 11, 1), ["a", "b"], {"type": "TIMESTAMP", "value": 0}]) == [
        {"type": "VARCHAR", "value": None}, {"type": "DOUBLE", "value": 1.5},
        {"type": "DATE", "value": "2026-11-01"}, {"type": "TIMESTAMP", "value": "2026-11-01 00:02:03.000"},
        {"type": "TIMESTAMP", "value": "2026-11-01 00:00:00.000"}, {"type": "ARRAY", "value": ["a", "b"]},
        {"type": "TIMESTAMP", "value": 0}]


@pytest.mark.parametrize(("params", "message"), [
    ({"a": 1}, r"binds parameters by position \(\?\) only; pass a list or tuple"),
    ("ab", r"expected a list or tuple of values, one per \?"),
    ([object()], r"SQL parameter 1=<object object .*>: Druid SQL cannot bind a object; valid: bool, int"),
    ([{"type": "VARCHAR"}], r"SQL parameter 1=\{'type': 'VARCHAR'\}: a typed parameter needs exactly the keys"),
])
def test_parameters_druid_cannot_bind_are_refused_naming_them(params, message):
    with pytest.raises(DruidUsageError, match=message):
        druid_parameters(params)


def test_misuse_is_a_clear_error_and_commit_is_a_no_op(conn, fake_druid):
    cur = conn.cursor()
    with pytest.raises(DruidUsageError, match="fetch before execute"):
        cur.fetchall()
    conn.commit()
    with pytest.raises(DruidUsageError, match="no transactions"):
        conn.rollback()
    cur.close()
    with pytest.raises(DruidUsageError, match="closed"):
        cur.execute("SELECT 1")
    conn.close()
    with pytest.raises(DruidUsageError, match="closed"):
        conn.cursor()
    assert fake_druid.requests_matching("POST", "/druid/v2/sql") == []
