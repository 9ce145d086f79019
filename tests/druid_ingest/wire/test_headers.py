"""The one header rule both transports use (``request_headers``), and what each transport actually sends."""

from __future__ import annotations

import pytest
from druid_ingest.wire import USER_AGENT, ClusterConfig, HttpCall, duplicate_id_in, request_headers


def _config(auth: tuple[str, str] | None) -> ClusterConfig:
    user, password = auth or (None, None)
    return ClusterConfig(url="http://druid.example:8888", username=user, password=password)


@pytest.mark.parametrize(
    ("body", "send_auth", "auth", "expected_extra"),
    [
        (None, False, None, {}),
        (b"{}", False, None, {"Content-Type": "application/json"}),
        (None, True, None, {}),  # nothing to send
        (None, False, ("u", "p"), {}),  # credentials held back (an untrusted redirect target)
        (b"{}", True, ("u", "p"), {"Content-Type": "application/json", "Authorization": "Basic dTpw"}),
    ],
)
def test_request_headers(body, send_auth, auth, expected_extra):
    hc = HttpCall("POST", "http://druid.example:8888/x", body, send_auth)
    assert request_headers(hc, _config(auth)) == {"Accept": "application/json", "User-Agent": USER_AGENT,
                                                  **expected_extra}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"error":"Task[idx_a_1] already exists!"}', "idx_a_1"),
        ("Task [idx:b 2] already exists", "idx:b 2"),
        ("Cannot find any task with id", None),
    ],
)
def test_duplicate_id_in(text, expected):
    assert duplicate_id_in(text) == expected
