"""The request/response model both transports share, and the pure rules that interpret responses.

Nothing here does I/O. A transport turns a :class:`Request` into a :class:`Response` (or raises a
transport-level :class:`~.errors.DruidConnectionError`/:class:`~.errors.DruidTimeoutError`);
:func:`classify` decides whether a response is a redirect to follow, a transient failure to retry, or
something for the operation to interpret; :func:`raise_for_status` maps the rest onto the error taxonomy.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote, urlencode, urljoin, urlsplit

from druid_ingest.errors import (
    DruidAuthError,
    DruidError,
    DruidLeaderUnavailableError,
    DruidNotFoundError,
    DruidProtocolError,
    DruidProxyError,
    DruidRedirectError,
    DruidServerError,
    DruidThrottledError,
    DruidTLSError,
    DruidUnsupportedMediaTypeError,
    DruidUsageError,
    DruidValidationError,
    DuplicateTaskIdError,
    UnknownTaskError,
)
from druid_ingest.wire._advice import auth_message, bad_request_hint, client_cert_refusal, proxy_forward_refusal
from druid_ingest.wire._config import ClusterConfig, Service, netloc_of

__all__ = [
    "MAX_ERROR_BODY",
    "MAX_REDIRECTS",
    "Request",
    "Response",
    "Verdict",
    "classify",
    "duplicate_id_in",
    "duplicate_task_id",
    "raise_for_status",
    "redirect_request_url",
    "seg",
    "transient_error",
]

MAX_REDIRECTS = 3
MAX_ERROR_BODY = 2000


def seg(value: str, what: str = "path segment") -> str:
    """URL-encode one path segment (task ids and datasource names may hold ``:``, spaces, ``%``...).

    ``""``, ``.`` and ``..`` survive percent-encoding and are then collapsed by HTTP clients and servers
    (``/task/../status`` is ``/druid/indexer/v1/status``), so they are refused before any request is made.
    Druid never creates such ids or datasources (``IdUtils.validateId``: not empty, no leading ``.``).
    """
    if value in ("", ".", ".."):
        raise DruidUsageError(
            f"{what} {value!r} cannot be sent to Druid: it would change the URL path; Druid ids and "
            "datasource names are never empty and never start with '.'"
        )
    return quote(value, safe="")


@dataclass(frozen=True)
class Request:
    """One HTTP call to one Druid service. ``path`` is already encoded; ``params`` are not."""

    method: Literal["GET", "POST", "DELETE"]
    service: Service
    path: str
    params: tuple[tuple[str, str], ...] = ()
    json_body: Any = None
    #: whether a 404 means "no such task" for this call (task-scoped endpoints)
    task_id: str | None = None
    #: a cap on this call's read timeout (seconds, below the configured one); a call that hits it is not retried:
    #: for a probe that may hang on the server (the sampler opening an unreachable input), where each retry
    #: would start another hanging read there
    read_timeout: float | None = None
    #: headers of this call beyond the ones every call sends (``request_headers``): Druid's audit headers
    #: (``X-Druid-Author``, ``X-Druid-Comment``) on a config change, so its audit history names who made it
    headers: tuple[tuple[str, str], ...] = ()

    def url(self, config: ClusterConfig) -> str:
        url = config.base_url(self.service) + self.path
        if self.params:
            url += "?" + urlencode(self.params)
        return url

    def body_bytes(self) -> bytes | None:
        if self.json_body is None:
            return None
        return json.dumps(self.json_body, separators=(",", ":")).encode()


@dataclass
class Response:
    """What came back. ``url`` is the URL actually called (after redirects), without credentials."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    url: str = ""
    method: str = "GET"
    #: whether this call carried the Authorization header (so a 401 can say "rejected" or "none sent")
    sent_auth: bool = False
    #: the scheme of that header ("Basic" or "Bearer"), so a 401 names the field to fix
    auth_scheme: str = "Basic"
    #: seconds from sending to the whole body read (the input probe tells a slow input from an empty one by it)
    elapsed: float = 0.0
    #: ``host:port`` of the proxy that forwarded this plain-http call (it may have answered it itself), or ''
    via_proxy: str = ""

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def header(self, name: str) -> str | None:
        lname = name.lower()
        for k, v in self.headers.items():
            if k.lower() == lname:
                return v
        return None

    @property
    def is_json(self) -> bool:
        try:
            json.loads(self.body)
        except ValueError:
            return False
        return True

    @property
    def is_html(self) -> bool:
        ctype = (self.header("content-type") or "").lower()
        head = self.body[:200].lstrip().lower()
        return "html" in ctype or head.startswith((b"<!doctype html", b"<html"))

    def json(self) -> Any:
        if not self.body.strip():
            raise DruidProtocolError(
                "empty body where JSON was expected", status=self.status, method=self.method, url=self.url
            )
        try:
            return json.loads(self.body)
        except ValueError as exc:
            raise DruidProtocolError(
                f"body is not JSON: {self.text[:200]!r}", status=self.status, method=self.method, url=self.url
            ) from exc

    def druid_message(self) -> str:
        """Druid's own error text, whichever of its error shapes the body uses."""
        text = self.text.strip()
        if not text:
            return ""
        if self.is_html:
            title = re.search(r"<title>(.*?)</title>", text, re.I | re.S)
            pre = re.search(r"<pre>(.*?)</pre>", text, re.I | re.S)
            return " ".join(x.group(1).strip() for x in (title, pre) if x)[:MAX_ERROR_BODY]
        try:
            data = json.loads(text)
        except ValueError:
            return text[:MAX_ERROR_BODY]
        if isinstance(data, dict):
            for key in ("errorMessage", "error", "message", "Access-Check-Result"):
                if data.get(key):
                    return str(data[key])[:MAX_ERROR_BODY]
        return text[:MAX_ERROR_BODY]


Verdict = Literal["ok", "redirect", "transient"]


def classify(resp: Response) -> Verdict:
    """The transport-level decision: follow, retry, or hand to the operation."""
    if resp.status in (307, 308):
        return "redirect"
    if resp.status == 500 and _DUPLICATE.search(resp.text):
        # MSQ's /sql/task wraps the Overlord's duplicate-id 400 in a 500 (druid-contract §msq): final, not
        # transient; the operation reads the task's status instead
        return "ok"
    if resp.status == 429 or resp.status >= 500:
        return "transient"
    return "ok"


def transient_error(resp: Response) -> DruidError:
    """The retryable error for a response :func:`classify` called transient."""
    kw: dict[str, Any] = {"status": resp.status, "method": resp.method, "url": resp.url,
                          "body": resp.text[:MAX_ERROR_BODY]}
    msg = resp.druid_message() or "no body"
    if resp.status == 429:
        return DruidThrottledError(f"Druid is throttling: {msg}", **kw)
    if resp.status == 503:
        return DruidLeaderUnavailableError(f"Druid service unavailable (no leader, or not ready): {msg}", **kw)
    kind = "HTML error page (proxy?)" if resp.is_html else "server error"
    return DruidServerError(f"Druid {kind}: {msg}", **kw)


def redirect_request_url(resp: Response, config: ClusterConfig, has_credentials: bool) -> str:
    """Where a 307/308 points, refused if credentials would go to a host outside the cluster config."""
    location = resp.header("location")
    if not location:
        raise DruidRedirectError(
            "redirect without a Location header", status=resp.status, method=resp.method, url=resp.url
        )
    target = _redirect_target(resp, location)
    if has_credentials and netloc_of(target) not in config.trusted_netlocs():
        scheme, host, port = netloc_of(target)
        raise DruidRedirectError(
            f"Druid redirected this call to {scheme}://{host}:{port}, a host that is not part of the connection, "
            f"so it was stopped there and the login was not sent to it; point the connection at a Router (one "
            f"base URL, no redirects) or at that host, or add '{host}:{port}' to the trusted_hosts extra if it "
            f"belongs to your cluster",
            status=resp.status,
            method=resp.method,
            url=resp.url,
        )
    return target


def _redirect_target(resp: Response, location: str) -> str:
    """The absolute http(s) URL a Location names, or DruidRedirectError when it is not one both transports can
    call (Locations are ASCII without spaces, RFC 9110; anything else would fail later inside requests/aiohttp
    with errors outside the taxonomy)."""
    problem = None
    if not location.isascii() or any(ch.isspace() or not ch.isprintable() for ch in location):
        problem = "holds spaces, control or non-ASCII characters"
    else:
        try:
            target = urljoin(resp.url, location)
            parts = urlsplit(target)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number in 0-65535
        except ValueError as exc:
            problem = f"is not a valid URL ({exc})"
        else:
            if parts.scheme not in ("http", "https") or not parts.hostname:
                problem = "is not an absolute http(s) URL"
    if problem is not None:
        raise DruidRedirectError(
            f"Druid redirected to Location {location[:200]!r}, which {problem}", status=resp.status,
            method=resp.method, url=resp.url,
        )
    return target


_DUPLICATE = re.compile(r"Task ?\[(?P<id>.+?)\] already exists")
_UNKNOWN_TASK = re.compile(r"Cannot find any task with id")


def duplicate_id_in(text: str) -> str | None:
    """The task id of Druid's "Task[id] already exists" (``TaskQueue``'s duplicate refusal), wherever it is
    wrapped: the Overlord's 400 or MSQ's /sql/task 500."""
    match = _DUPLICATE.search(text)
    return match.group("id") if match else None


def duplicate_task_id(resp: Response) -> str | None:
    """The id from a duplicate-id 400, in the Druid >= 30 JSON shape or the <= 29 ``{"error":...}`` shape."""
    if resp.status != 400:
        return None
    return duplicate_id_in(resp.druid_message() or resp.text)


def raise_for_status(resp: Response, req: Request) -> None:
    """Map a non-2xx, non-transient response onto the fatal error taxonomy."""
    if 200 <= resp.status < 300:
        return
    kw: dict[str, Any] = {"status": resp.status, "method": resp.method, "url": resp.url,
                          "body": resp.text[:MAX_ERROR_BODY]}
    msg = resp.druid_message() or "no body"
    if resp.status == 400:
        dup = duplicate_task_id(resp)
        if dup is not None:
            raise DuplicateTaskIdError(dup, **kw)
        cert_refusal = client_cert_refusal(msg, resp.url)
        if cert_refusal is not None:
            raise DruidTLSError(cert_refusal, **kw)
        raise DruidValidationError(f"Druid rejected the request: {msg}{bad_request_hint(msg, resp.url)}", **kw)
    if resp.status == 407 or (resp.status == 403 and resp.via_proxy and not resp.is_json):
        # the proxy's own answer, not Druid's: Druid's 403 is JSON ({"Access-Check-Result": ...}), a proxy's a page
        raise DruidProxyError(proxy_forward_refusal(resp.status, resp.via_proxy, resp.url), **kw)
    if resp.status in (401, 403):
        server_said = resp.druid_message()
        raise DruidAuthError(auth_message(resp.status, req.method, req.path, resp.sent_auth, server_said,
                                          resp.auth_scheme, resp.header("www-authenticate") or ""), **kw)
    if resp.status == 404:
        if req.task_id is not None and _UNKNOWN_TASK.search(resp.text):
            raise UnknownTaskError(req.task_id, **kw)
        raise DruidNotFoundError(f"Druid endpoint or object not found: {msg}", **kw)
    if resp.status == 415:
        raise DruidUnsupportedMediaTypeError(f"Druid refused the content type: {msg}", **kw)
    if resp.status in (307, 308):
        raise DruidRedirectError(f"too many redirects (> {MAX_REDIRECTS})", **kw)
    if resp.status == 429 or resp.status >= 500:
        raise transient_error(resp)
    raise DruidValidationError(f"unexpected Druid response: {msg}", **kw)
