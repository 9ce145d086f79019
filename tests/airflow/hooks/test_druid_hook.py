"""DruidHook: a druid_cluster connection mapped to the core's ClusterConfig, and the UI "Test" button."""

from __future__ import annotations

import pytest
from airflow.sdk import Connection

from airflow_provider_druid_ingest.hooks.druid import DruidHook, config_from_connection
from tests.net import free_port

from ..conftest import PASSWORD, conn_json


def test_connection_passes_against_the_fake_and_fails_clearly_on_a_closed_port(druid_conn, monkeypatch):
    ok, message = DruidHook().test_connection()
    assert ok, message
    port = free_port()
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(f"http://127.0.0.1:{port}"))
    ok, message = DruidHook().test_connection()
    assert not ok
    assert "connection refused, nothing listens there" in message and f"127.0.0.1:{port}" in message
    assert "health check" in message
    assert PASSWORD not in message


def test_wrong_password_fails_test_connection_without_echoing_it(fake, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT", conn_json(fake.url, password="nope-nope"))
    ok, message = DruidHook().test_connection()
    assert not ok and "401" in message and "nope-nope" not in message


@pytest.mark.parametrize(
    ("fields", "extra", "url"),
    [
        ({"host": "router.example.com", "port": 8888}, {}, "http://router.example.com:8888"),
        ({"host": "router.example.com", "port": 9088}, {}, "https://router.example.com:9088"),
        ({"host": "router.example.com", "port": 443}, {}, "https://router.example.com:443"),
        ({"host": "router.example.com", "schema": "https"}, {}, "https://router.example.com"),
        ({"host": "router.example.com", "port": 8888}, {"use_https": "true"}, "https://router.example.com:8888"),
        ({"host": "http://router:8888/", "port": 9999}, {}, "http://router:8888"),
        ({"host": "https://router", "port": 8443}, {}, "https://router:8443"),
    ],
)
def test_connection_to_cluster_config(fields, extra, url):
    conn = Connection(conn_id="x", conn_type="druid_cluster", login="u", password=PASSWORD, **fields)
    config = config_from_connection(conn, extra)
    assert config.url == url
    assert config.auth == ("u", PASSWORD)
    assert PASSWORD not in repr(config)


def test_extras_map_to_config():
    conn = Connection(conn_id="x", conn_type="druid_cluster", host="http://router:8888")
    config = config_from_connection(
        conn,
        {
            "coordinator_url": "http://coord:8081",
            "broker_url": "http://broker:8082",
            "console_url": "https://console.example.com",
            "verify": "false",
            "ca_bundle": "/etc/ca.pem",
            "connect_timeout": "3",
            "read_timeout": 30,
            "trusted_hosts": "overlord-2:8090, overlord-3:8090",
        },
    )
    assert config.coordinator_url == "http://coord:8081" and config.broker_url == "http://broker:8082"
    assert config.verify is False and config.ca_bundle == "/etc/ca.pem"
    assert (config.connect_timeout, config.read_timeout) == (3.0, 30.0)
    assert config.trusted_hosts == ("overlord-2:8090", "overlord-3:8090")
    assert config.console_task_url("t1").startswith("https://console.example.com/unified-console.html#tasks")


@pytest.mark.parametrize(
    "extra",
    ["overlord-2:8090;overlord-3:8090", " overlord-2:8090 ,, overlord-3:8090 ",
     ["overlord-2:8090", " overlord-3:8090"]],
)
def test_trusted_hosts_extra_spellings_give_bare_host_ports(extra):
    conn = Connection(conn_id="x", conn_type="druid_cluster", host="http://router:8888")
    config = config_from_connection(conn, {"trusted_hosts": extra})
    assert config.trusted_hosts == ("overlord-2:8090", "overlord-3:8090")
    assert {("http", "overlord-3", 8090), ("https", "overlord-3", 8090)} <= config.trusted_netlocs()


def test_bearer_auth_takes_the_token_from_the_password_and_drops_the_login():
    conn = Connection(conn_id="x", conn_type="druid_cluster", host="http://router:8888", login="u",
                      password="tok-secret")
    config = config_from_connection(conn, {"auth": "Bearer", "client_cert": "/c.pem", "client_key": "/k.pem",
                                           "proxy": "http://proxy:3128", "trust_env": "true"})
    assert config.authorization_header() == "Bearer tok-secret" and config.auth is None
    assert "tok-secret" not in repr(config)
    assert (config.tls_client_cert, config.proxy, config.trust_env) == (("/c.pem", "/k.pem"), "http://proxy:3128",
                                                                        True)


def test_an_unknown_auth_extra_is_refused_naming_the_choices():
    conn = Connection(conn_id="x", conn_type="druid_cluster", host="http://router:8888")
    with pytest.raises(ValueError, match=r"auth='oauth'.*'basic'.*'bearer'"):
        config_from_connection(conn, {"auth": "oauth"})
