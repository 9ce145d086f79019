"""One error taxonomy for every face (sync client, async client, Airflow, Dagster, CLI).

Transient errors are retried by the shared retry policy; fatal errors are raised on the first response.
Messages carry the request context (method, service, path) and Druid's own message, never credentials:
URLs in messages are built from the configured base URL with any user-info stripped.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = [
    "DruidAuthError",
    "DruidConnectionError",
    "DruidEmptyIngestionError",
    "DruidEmptyInputError",
    "DruidError",
    "DruidFatalError",
    "DruidInputProbeError",
    "DruidInputProbeRefusedError",
    "DruidLeaderUnavailableError",
    "DruidMayHavePublishedError",
    "DruidNotFoundError",
    "DruidNothingToCompactError",
    "DruidNothingToRestoreError",
    "DruidProtocolError",
    "DruidProxyError",
    "DruidRedirectError",
    "DruidRetriesExhaustedError",
    "DruidServerError",
    "DruidTLSError",
    "DruidTaskFailedError",
    "DruidThrottledError",
    "DruidTimeoutError",
    "DruidTransientError",
    "DruidUnsupportedMediaTypeError",
    "DruidUsageError",
    "DruidValidationError",
    "DruidWaitTimeoutError",
    "DuplicateTaskIdError",
    "HandoffNeverError",
    "SpecProblem",
    "SpecValidationError",
    "UnknownTaskError",
    "error_names",
    "is_fatal",
    "taxonomy_class",
]


class DruidError(Exception):
    """Base of everything this package raises about Druid."""

    #: whether the shared retry policy may retry the call that raised it
    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        method: str | None = None,
        url: str | None = None,
        body: str | None = None,
    ) -> None:
        self.message = message
        self.status = status
        self.method = method
        self.url = url
        self.body = body
        super().__init__(self._render())

    def _render(self) -> str:
        where = f" [{self.method} {self.url}]" if self.method and self.url else ""
        code = f" HTTP {self.status}" if self.status is not None else ""
        return f"{self.message}{code}{where}"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle by text and fields: the subclasses' ``__init__`` take other arguments than ``args`` holds."""
        return _rebuilt, (type(self), str(self), dict(vars(self)))


# ---- transient: retried with capped exponential backoff under a deadline -------------------------


class DruidTransientError(DruidError):
    """Worth retrying: the cluster or the network may recover."""

    retryable = True


class DruidServerError(DruidTransientError):
    """HTTP 5xx (including HTML error pages from proxies and load balancers)."""


class DruidThrottledError(DruidTransientError):
    """HTTP 429: the Overlord's task queue is full (``druid.indexer.queue.maxSize``)."""


class DruidLeaderUnavailableError(DruidTransientError):
    """HTTP 503: no Overlord/Coordinator leader yet, or the leader's queue is not ready."""


class DruidConnectionError(DruidTransientError):
    """Connection refused or reset before a response arrived."""


class DruidTimeoutError(DruidTransientError):
    """Connect or read timeout."""


# ---- fatal: raised at once, no retries burned ---------------------------------------------------


class DruidFatalError(DruidError):
    """Retrying cannot help: the request itself is wrong or not allowed."""


class DruidValidationError(DruidFatalError):
    """HTTP 400 (other than a duplicate task id): Druid rejected the spec or the request."""


class DruidAuthError(DruidFatalError):
    """HTTP 401 (bad or missing credentials) or 403 (authenticated but not permitted)."""


class DruidNotFoundError(DruidFatalError):
    """HTTP 404 on an endpoint that should exist (wrong base URL, Router without management proxy)."""


class DruidUnsupportedMediaTypeError(DruidFatalError):
    """HTTP 415: the request was not sent as application/json."""


class DruidTLSError(DruidFatalError):
    """The TLS handshake failed (untrusted or mismatched certificate): set ``ca_bundle``, fix the host name,
    or opt out with ``verify=False``. Not retried: the next handshake fails the same way."""


class DruidProxyError(DruidFatalError):
    """The proxy refused the call itself: the tunnel request (CONNECT) of an https URL, or (403, 407) the forwarded
    request of a plain-http one; its policy, or a login it wants. Not retried: the proxy answers the same way next
    time (a 5xx from it is a DruidConnectionError instead)."""


class DruidRedirectError(DruidFatalError):
    """A leader redirect pointed at a host this client will not send credentials to, or looped."""


class DruidUsageError(DruidFatalError, ValueError):
    """The call itself cannot be right, so nothing is sent: e.g. a task id of ``..`` (it would change the URL
    path), or a handoff check for a datasource the task never wrote."""


class DruidProtocolError(DruidFatalError):
    """Druid answered 2xx with a body this client cannot interpret."""


class DuplicateTaskIdError(DruidFatalError):
    """POST /task answered 400 ``Task[<id>] already exists``: the id is taken, whatever its state.

    Never success by itself: the caller must read that task's status to know what happened.
    """

    def __init__(self, task_id: str, **kwargs: Any) -> None:
        self.task_id = task_id
        super().__init__(f"Druid task id {task_id!r} already exists", **kwargs)


class DruidMayHavePublishedError(DruidFatalError):
    """An append's previous attempt ended FAILED but may have published its segments: nothing was submitted.

    Druid can mark a task FAILED after its publish committed (the worker vanished between the metadata commit and
    its status report; druid-contract §attempts), so running the append again could add its rows twice. Raised by
    ``ensure_submitted`` before the next attempt's POST; fatal: every retry would stop at the same evidence.
    ``task_id`` is the failed attempt, ``next_id`` the attempt that was not submitted.
    """

    def __init__(self, message: str, *, task_id: str, next_id: str) -> None:
        self.task_id = task_id
        self.next_id = next_id
        super().__init__(message)


class UnknownTaskError(DruidFatalError):
    """A task endpoint answered 404 ``Cannot find any task with id``.

    ``race``: the answer was the status method's own ``404 {"task": id, "status": null}``, which Druid gives in a
    race between its resource filter and the task storage (druid-contract §status): a wait retries that a few looks.
    """

    def __init__(self, task_id: str, *, race: bool = False, **kwargs: Any) -> None:
        self.task_id = task_id
        self.race = race
        super().__init__(f"Druid has no task with id {task_id!r}", **kwargs)


class DruidRetriesExhaustedError(DruidError):
    """Transient failures outlasted the retry policy (attempts or deadline). Wraps the last error.

    Raised as ``retries_exhausted`` builds it (``errors/_outage.py``): also an instance of the last error's class,
    so a rule keyed on ``DruidLeaderUnavailableError`` (Airflow's ``RetryRule``) matches the outage that the
    retries could not get past."""

    retryable = False  # explicit: the classes that are also the last error's would inherit True from it

    def __init__(self, last: DruidError, attempts: int, elapsed_s: float) -> None:
        self.last = last
        self.attempts = attempts
        self.elapsed_s = elapsed_s
        super().__init__(
            f"gave up after {attempts} attempt(s) in {elapsed_s:.1f}s; last error: {last.message}",
            status=last.status,
            method=last.method,
            url=last.url,
        )


# ---- outcomes that are errors to an orchestrator --------------------------------------------------


class DruidTaskFailedError(DruidError):
    """The Druid task ended FAILED. Built by ``reports.task_failed_error``: ``text`` holds the full errorMsg
    (from the report when the status cut it), the row stats and the first unparseable events, bounded."""

    def __init__(self, task_id: str, error_msg: str | None, text: str | None = None) -> None:
        self.task_id = task_id
        self.error_msg = error_msg
        super().__init__(text or f"Druid task {task_id} FAILED: {error_msg or 'no errorMsg'}")


class DruidNothingToCompactError(DruidTaskFailedError):
    """A compaction's interval held no used segment, so Druid failed the task before it ran ("No segments found
    for compaction"). A subclass of :class:`DruidTaskFailedError` so handlers of a failed task still catch it; not
    retried (a retry adopts the same FAILED task: nothing to compact stays nothing). ``allow_empty=True`` makes it
    a green outcome instead (``ops.nothing_to_compact``). ``datasource`` and ``interval`` name what was asked."""

    def __init__(self, task_id: str, error_msg: str | None, text: str, *, datasource: str = "",
                 interval: str = "") -> None:
        self.datasource = datasource
        self.interval = interval
        super().__init__(task_id, error_msg, text)


class DruidNothingToRestoreError(DruidFatalError):
    """A restore (a segment write that wants its interval served) found no data segment visible in the interval
    after its request: nothing unused there to bring back (never ingested, killed, or only tombstones), so a query
    would read no row. Druid answers such a ``markUsed`` with 200 and 0 changed segments, so without this the wait
    would be green over an empty interval. Fatal: a retry finds the same nothing. ``allow_empty=True`` takes it as
    green instead. ``marked`` is how many segments this run's request marked used (tombstones only, when not 0)."""

    def __init__(self, message: str, *, datasource: str, interval: str, marked: int) -> None:
        self.datasource = datasource
        self.interval = interval
        self.marked = marked
        super().__init__(message)


class DruidEmptyIngestionError(DruidError):
    """The Druid task succeeded but published no segments: its input was missing or had no usable rows.

    Nothing was replaced (with range partitioning Druid writes no tombstones), so queries still read whatever the
    interval held before. Not retried: a retry adopts the same SUCCESS task. Accept empty intervals explicitly
    (``allow_empty=True``), or fix the input and re-ingest under a new idempotency key. Its subclass
    :class:`DruidEmptyInputError` is the same verdict reached before submitting, from the input probe.
    """


class DruidEmptyInputError(DruidEmptyIngestionError):
    """A ``dropExisting`` replace was about to run over an input the sampler read no row from: nothing was submitted.

    Raised before the submit POST (``operations.probe_input``): with dynamic or hashed partitioning Druid would
    publish tombstones over the whole interval and erase its data. ``source`` names the input source and its
    location, ``intervals`` the intervals that would have been replaced.
    """

    def __init__(self, message: str, *, source: str, intervals: tuple[str, ...]) -> None:
        self.source = source
        self.intervals = intervals
        super().__init__(message)


class DruidInputProbeError(DruidError):
    """The pre-submit input probe of a ``dropExisting`` replace could not ask the sampler for a passing reason
    (5xx after the retries, a timeout): nothing was submitted, since an empty input would erase the interval.
    Not fatal: a later try may reach the sampler. ``allow_empty=True`` submits without the probe."""


class DruidInputProbeRefusedError(DruidFatalError):
    """The sampler cannot answer this probe whatever the retries (401/403: the credentials lack STATE WRITE,
    404/405: no sampler behind this URL, 400: an input it cannot read, an answer it cannot parse, or no
    ``inputSource`` to sample): nothing was submitted. ``allow_empty=True`` submits without the probe."""


class HandoffNeverError(DruidError):
    """The task's segments will never load (load rules give them zero replicas, or drop them)."""


class DruidWaitTimeoutError(DruidError):
    """A wait (task to terminal, or handoff) exceeded its deadline. Met during an outage it is also the outage's
    last error class (a ``WaitTimeout...`` class in ``errors/_outage.py``), as :class:`DruidRetriesExhaustedError`
    is."""


class SpecValidationError(ValueError):
    """A spec failed pre-flight validation. ``problems`` lists every problem found, each naming its path;
    ``hint`` (the last line of the message) says what to do if the check itself is wrong."""

    def __init__(self, problems: list[SpecProblem], hint: str | None = None, *,
                 subject: str = "Druid ingestion spec") -> None:
        self.problems = problems
        self.hint = hint
        self.subject = subject  # what was invalid: the spec, or an MSQ statement
        lines = "\n".join(f"  - {p}" for p in problems)
        tail = f"\n{hint}" if hint else ""
        super().__init__(f"invalid {subject} ({len(problems)} problem(s)):\n{lines}{tail}")

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuilt, (type(self), str(self), dict(vars(self)))


class SpecProblem:
    """One pre-flight problem: where (JSON path), what is wrong, what would be valid."""

    __slots__ = ("message", "path", "valid", "value")

    def __init__(self, path: str, message: str, *, value: Any = None, valid: str | None = None) -> None:
        self.path = path
        self.message = message
        self.value = value
        self.valid = valid

    def __str__(self) -> str:
        text = f"{self.path}: {self.message}"
        if self.value is not None:
            text += f" (got {self.value!r})"
        if self.valid:
            text += f"; valid: {self.valid}"
        return text

    def __repr__(self) -> str:
        return f"SpecProblem({self!s})"


def is_fatal(exc: BaseException) -> bool:
    """Whether waiting or retrying cannot help: the request was refused (4xx, a refused redirect, a bad answer), the
    Druid task FAILED, its segments will never load, it published nothing, or the spec is invalid. Every face
    fails such an error without retries (Airflow: ``AirflowFailException``), whether it surfaced in a worker or
    in a trigger's event."""
    return isinstance(
        exc, DruidFatalError | DruidTaskFailedError | HandoffNeverError | DruidEmptyIngestionError | SpecValidationError
    )


def _in_taxonomy(cls: type[BaseException]) -> type[Exception] | None:
    """The nearest class of this taxonomy in ``cls``'s MRO (a caller's own subclass counts as its base)."""
    for base in cls.__mro__:
        if base.__module__ == __name__ and base.__name__ in __all__:
            return base
    return None


def error_names(exc: BaseException) -> tuple[str, ...]:
    """Names of the taxonomy classes a failure stands for, most specific first: its own class and, when the retries
    gave up (:class:`DruidRetriesExhaustedError`), its last error's, since that is what the retries could not get
    past. Empty for an exception outside the taxonomy. They travel in a trigger event, so a face can raise an error
    of the same classes on the other side (Airflow's ``RetryRule`` matches by ``isinstance``)."""
    if not isinstance(exc, DruidError | SpecValidationError):
        return ()
    own = _in_taxonomy(type(exc))
    names: tuple[str, ...] = (own.__name__,) if own is not None else ()
    last = getattr(exc, "last", None)  # a rebuilt error (:func:`error_from_names`) has none
    if isinstance(exc, DruidRetriesExhaustedError) and last is not None:
        names += tuple(n for n in error_names(last) if n not in names)
    return names


def taxonomy_class(name: str) -> type[Exception] | None:
    """The taxonomy's error class called ``name``, or None (an event written by another version of this package)."""
    value = globals().get(name) if name in __all__ else None
    return value if isinstance(value, type) and issubclass(value, DruidError | SpecValidationError) else None


_E = TypeVar("_E", bound=Exception)


def _rebuilt(cls: type[_E], text: str, fields: dict[str, Any]) -> _E:
    """``cls`` with ``text`` and ``fields``, without its ``__init__`` (which wants what only the raiser had)."""
    error = cls.__new__(cls)
    Exception.__init__(error, text)
    error.__dict__.update(fields)
    return error
