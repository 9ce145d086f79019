"""Fuzz: error bodies (every status with every body shape) and leader redirects through the one exchange loop."""

from __future__ import annotations

from typing import Any

import pytest
from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidError
from druid_ingest.wire._config import ClusterConfig, netloc_of
from druid_ingest.wire._exchange import HttpCall, Sleep, exchange
from druid_ingest.wire._http import (
    MAX_ERROR_BODY,
    MAX_REDIRECTS,
    Response,
    classify,
    duplicate_task_id,
    raise_for_status,
    transient_error,
)
from druid_ingest.wire._retry import RetryPolicy

from .gen import G, any_json, integers, just, lists, obj, one_of, sampled, seeded, text, tuples
from .harness import fuzz, guarded
from .strategies import body_bytes, response, status_codes

pytestmark = pytest.mark.fuzz

#: Druid's error shapes: DruidException (>= 30), the legacy {"error": ...}, the 403 mapper, Jetty/proxy pages
_DUP = sampled(["Task[t1] already exists!", "Task [a b:c] already exists", "Task[] already exists",
                "Task[" + "[" * 3000 + " already exists"])
_ERROR_BODIES = one_of(
    obj({"error": just("druidException"), "errorCode": text(8), "persona": just("USER"),
         "category": sampled(["INVALID_INPUT", "CAPACITY_EXCEEDED"]), "errorMessage": one_of(text(60), _DUP)},
        {"context": any_json}),
    obj({"error": one_of(text(40), _DUP, text(3000))}),
    obj({"Access-Check-Result": text(20)}),
    obj({"message": text(30), "errorClass": text(10), "host": text(5)}),
    any_json,
)


def test_fuzz_error_bodies() -> None:
    def check(resp: Response) -> None:
        message = resp.druid_message()
        assert isinstance(message, str) and len(message) <= MAX_ERROR_BODY
        duplicate_task_id(resp)
        classify(resp)
        if resp.status == 429 or resp.status >= 500:
            assert transient_error(resp).retryable
        for req in (ep.submit({"type": "index"}), ep.status("t1"), ep.shutdown("t1")):
            err: Any = guarded(lambda req=req: raise_for_status(resp, req))
            if isinstance(err, DruidError) and err.body is not None:
                assert len(err.body) <= MAX_ERROR_BODY

    fuzz("error_bodies", seeded(response(_ERROR_BODIES, method="POST")), check)


_HOSTS = ["http://druid.example:8888", "https://druid.example:8888", "http://leader:8081", "http://evil.example",
          "//evil.example:1/x", "/druid/indexer/v1/task", "http://druid.example:8888@evil.example/",
          "http://[::1]:8081/", "http://[::1", "http://druid.example:99999/", "http://druid.example:-1/",
          "http://druid.example:8888\r\nX-Injected: 1", "javascript:alert(1)", "http://DRUID.EXAMPLE:8888/x", ""]
_LOCATIONS = one_of(sampled(_HOSTS), text(30), tuples(sampled(_HOSTS), text(10)).map("".join))


_BODIES = body_bytes(_ERROR_BODIES)
_STATUS = one_of(sampled([307, 308, 307, 200, 503, 429, 400]), status_codes)
_HEADER = sampled(["Location", "location", "LOCATION"])


def _answer(r: Any) -> Response:
    status = _STATUS(r)
    headers: dict[str, str] = {}
    if status in (307, 308) and r.random() < 0.9:
        headers[_HEADER(r)] = _LOCATIONS(r)
    return Response(status, _BODIES(r), headers, "", "POST")


#: what the wire gives one exchange, call after call: redirects with odd Locations, errors, a final answer
_ANSWERS = lists(G(_answer), 8, min_size=1)


def test_fuzz_redirects() -> None:
    """Leader redirects and retries: credentials go only to trusted hosts, and the loop always ends."""
    configs = [ClusterConfig(url="http://druid.example:8888", username="u", password="pw"),
               ClusterConfig(url="https://druid.example:8888", username="u", password="pw",
                             trusted_hosts=("leader:8081",)),
               ClusterConfig(url="http://druid.example:8888")]
    policy = RetryPolicy(max_attempts=4, initial_delay=0.0, jitter=False, deadline=1e9)

    def check(case: tuple[int, list[Response | DruidError]]) -> None:
        config = configs[case[0]]
        trusted = config.trusted_netlocs()
        answers = iter(case[1])

        def run() -> None:
            ex = exchange(ep.submit({"type": "index"}), config, policy, clock=lambda: 0.0)
            reply: Any = None
            for _ in range(4 * (MAX_REDIRECTS + policy.max_attempts) + 4):  # the loop must end: no hang
                try:
                    action = ex.send(reply)
                except StopIteration:
                    return
                if isinstance(action, Sleep):
                    reply = None
                    continue
                assert isinstance(action, HttpCall)
                if action.send_auth:
                    assert netloc_of(action.url) in trusted, f"credentials sent to {action.url}"
                reply = next(answers, Response(200, b"{}", {}, action.url, "POST"))
                if isinstance(reply, Response):
                    reply.url = action.url
            raise AssertionError("the exchange did not end")

        guarded(run)

    fuzz("redirects", seeded(tuples(integers(0, len(configs) - 1), _ANSWERS)), check)
