"""The words for failures a user fixes: certificate, login, permission, port (core.advice, pure)."""

from __future__ import annotations

import re
import ssl

import pytest
import requests
from druid_ingest.errors import DruidAuthError, DruidValidationError
from druid_ingest.wire._advice import (
    auth_message,
    bad_request_hint,
    connect_message,
    needed_permission,
    ssl_reason,
    tls_message,
)
from druid_ingest.wire._http import Request, Response, raise_for_status

URL = "https://druid.example.com:9088/druid/indexer/v1/task"


@pytest.mark.parametrize(
    ("method", "path", "want"),
    [
        ("POST", "/druid/indexer/v1/task", "DATASOURCE WRITE"),
        ("POST", "/druid/indexer/v1/task/ingest_x/shutdown", "DATASOURCE WRITE"),
        ("POST", "/druid/indexer/v1/taskStatus", "STATE WRITE"),
        ("POST", "/druid/indexer/v1/activeLocks", "STATE WRITE"),
        ("GET", "/druid/indexer/v1/workers", "STATE READ"),
        ("GET", "/druid/indexer/v1/task/ingest_x/status", "DATASOURCE READ"),
        ("GET", "/druid/coordinator/v1/datasources/x/segments?full", "DATASOURCE READ"),
        ("POST", "/druid/v2/sql", "every datasource or system table"),
    ],
)
def test_each_call_names_the_permission_druid_checks(method: str, path: str, want: str) -> None:
    assert want in (needed_permission(method, path) or "")


def test_unknown_calls_name_no_permission() -> None:
    assert needed_permission("GET", "/status/health") is None
    assert "which needs" not in auth_message(403, "GET", "/status/health", True, "")


def test_401_says_rejected_or_none_sent_and_403_says_what_is_missing() -> None:
    req = Request("POST", "overlord", "/druid/indexer/v1/task", json_body={})
    for sent, words in ((True, "were sent and refused"), (False, "none was sent")):
        with pytest.raises(DruidAuthError) as info:
            raise_for_status(Response(401, b"", url=URL, method="POST", sent_auth=sent), req)
        assert words in str(info.value) and "HTTP 401 [POST " + URL + "]" in str(info.value)
    with pytest.raises(DruidAuthError) as info:
        raise_for_status(Response(403, b'{"Access-Check-Result":"Unauthorized"}', {"Content-Type":
                         "application/json"}, URL, "POST", sent_auth=True), req)
    assert str(info.value).startswith(
        "Druid refused the request: the login is valid but this user is not permitted to call POST "
        "/druid/indexer/v1/task, which needs WRITE on the datasource (DATASOURCE WRITE) (server said: "
        '"Unauthorized"); ask a Druid administrator')


def test_plain_http_to_a_tls_port_gets_a_hint() -> None:
    body = b"<html><head><title>400 The plain HTTP request was sent to HTTPS port</title></head></html>"
    req = Request("GET", "overlord", "/druid/indexer/v1/workers")
    with pytest.raises(DruidValidationError, match=re.escape("druid.example.com:9088 is a TLS port: use https://")):
        raise_for_status(Response(400, body, {"Content-Type": "text/html"}, "http://druid.example.com:9088/x"), req)
    assert bad_request_hint("Unknown field", URL) == ""


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("CERTIFICATE_VERIFY_FAILED: self-signed certificate in certificate chain", "ca_bundle extra"),
        ("CERTIFICATE_VERIFY_FAILED: unable to get local issuer certificate", "not signed by a CA this client"),
        ("CERTIFICATE_VERIFY_FAILED: Hostname mismatch, certificate is not valid for 'x'.", "does not name that host"),
        ("CERTIFICATE_VERIFY_FAILED: certificate has expired", "has expired"),
        ("WRONG_VERSION_NUMBER", "does not speak TLS"),
        ("TLSV1_ALERT_INTERNAL_ERROR", "TLS handshake with druid.example.com:9088 failed"),
    ],
)
def test_tls_failures_by_cause(reason: str, words: str) -> None:
    text = tls_message(reason, URL)
    assert words in text and "druid.example.com:9088" in text and reason in text


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("HTTPSConnectionPool(...): Failed to establish a new connection: [Errno 111] Connection refused'))",
         "connection refused, nothing listens there"),
        ("[Errno -2] Name or service not known", "the host name does not resolve (Name or service not known)"),
        ("[Errno 113] No route to host", "could not connect to druid.example.com:9088: No route to host"),
    ],
)
def test_connection_failures_by_cause(reason: str, words: str) -> None:
    assert words in connect_message(reason, URL)


def test_ssl_reason_is_found_inside_the_wrappers() -> None:
    inner = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    inner.reason = "CERTIFICATE_VERIFY_FAILED"
    inner.verify_message = "self-signed certificate"
    wrapped = requests.exceptions.SSLError(requests.exceptions.SSLError(inner))
    assert ssl_reason(wrapped) == "CERTIFICATE_VERIFY_FAILED: self-signed certificate"
    plain = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")
    plain.reason = "WRONG_VERSION_NUMBER"
    try:
        raise OSError("outer") from plain
    except OSError as exc:
        assert ssl_reason(exc) == "WRONG_VERSION_NUMBER"
    assert ssl_reason(TimeoutError()) in ("timeout", "TimeoutError")


BEARER_401 = {"Content-Type": "text/html", "WWW-Authenticate": 'Bearer realm="druid"'}
PAGE_401 = b"<html><head><title>401 Authorization Required</title></head></html>"


def test_a_bearer_challenge_without_a_login_asks_for_the_token() -> None:
    req = Request("GET", "overlord", "/druid/indexer/v1/workers")
    with pytest.raises(DruidAuthError) as info:
        raise_for_status(Response(401, PAGE_401, BEARER_401, URL, sent_auth=False), req)
    assert str(info.value).startswith(
        'Druid requires a bearer token and none was sent (server said: "401 Authorization Required"): the server '
        "asks for one (WWW-Authenticate: Bearer); set the token (ClusterConfig.token; in Airflow the connection's "
        "Password with extra auth=bearer)")


def test_a_password_sent_to_a_bearer_server_says_it_wants_a_token() -> None:
    req = Request("GET", "overlord", "/druid/indexer/v1/workers")
    with pytest.raises(DruidAuthError) as info:
        raise_for_status(Response(401, PAGE_401, BEARER_401, URL, sent_auth=True, auth_scheme="Basic"), req)
    assert "the server asks for a bearer token (WWW-Authenticate: Bearer), not a user name and password" in str(
        info.value)
    # a refused token against the same challenge stays "rejected the bearer token"
    with pytest.raises(DruidAuthError, match="rejected the bearer token"):
        raise_for_status(Response(401, PAGE_401, BEARER_401, URL, sent_auth=True, auth_scheme="Bearer"), req)


@pytest.mark.parametrize(("reason", "words"), [
    ("TLSV13_ALERT_CERTIFICATE_REQUIRED", "requires a TLS client certificate and none was sent"),
    ("TLSV1_ALERT_UNKNOWN_CA", "refused the TLS client certificate"),
    ("SSLV3_ALERT_BAD_CERTIFICATE", "refused the TLS client certificate"),
])
def test_the_servers_alerts_about_our_certificate_name_client_cert(reason: str, words: str) -> None:
    text = tls_message(reason, URL)
    assert f"druid.example.com:9088 {words} ({reason})" in text and "client_cert" in text
