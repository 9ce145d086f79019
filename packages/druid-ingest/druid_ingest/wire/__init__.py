"""The wire: the HTTP call model, the one exchange loop (redirects, retries), the retry policy, the cluster
config and the error taxonomy. Nothing here knows an endpoint; the other rooms build on it.

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from ._advice import TransportFailure, connect_message, ssl_reason, tls_message, transport_error
    from ._config import ClusterConfig, Secret, Service
    from ._errors import (
        DruidAuthError,
        DruidConnectionError,
        DruidEmptyIngestionError,
        DruidEmptyInputError,
        DruidError,
        DruidFatalError,
        DruidNotFoundError,
        DruidProtocolError,
        DruidRetriesExhaustedError,
        DruidTaskFailedError,
        DruidTimeoutError,
        DruidTLSError,
        DruidTransientError,
        DruidUsageError,
        DruidValidationError,
        DruidWaitTimeoutError,
        DuplicateTaskIdError,
        HandoffNeverError,
        SpecProblem,
        SpecValidationError,
        UnknownTaskError,
        is_fatal,
    )
    from ._exchange import (
        USER_AGENT,
        Exchange,
        HttpCall,
        Operation,
        Progress,
        ProgressSink,
        SharedRead,
        Sleep,
        call,
        exchange,
        read_timeout,
        request_headers,
    )
    from ._http import Request, Response, duplicate_id_in, raise_for_status, seg
    from ._retry import PollSchedule, RetryPolicy

#: where each public name lives
_WHERE = {
    "USER_AGENT": "_exchange",
    "ClusterConfig": "_config",
    "DruidAuthError": "_errors",
    "DruidConnectionError": "_errors",
    "DruidEmptyIngestionError": "_errors",
    "DruidEmptyInputError": "_errors",
    "DruidError": "_errors",
    "DruidFatalError": "_errors",
    "DruidNotFoundError": "_errors",
    "DruidProtocolError": "_errors",
    "DruidRetriesExhaustedError": "_errors",
    "DruidTLSError": "_errors",
    "DruidTaskFailedError": "_errors",
    "DruidTimeoutError": "_errors",
    "DruidTransientError": "_errors",
    "DruidUsageError": "_errors",
    "DruidValidationError": "_errors",
    "DruidWaitTimeoutError": "_errors",
    "DuplicateTaskIdError": "_errors",
    "Exchange": "_exchange",
    "HandoffNeverError": "_errors",
    "HttpCall": "_exchange",
    "Operation": "_exchange",
    "PollSchedule": "_retry",
    "Progress": "_exchange",
    "ProgressSink": "_exchange",
    "Request": "_http",
    "Response": "_http",
    "RetryPolicy": "_retry",
    "Secret": "_config",
    "Service": "_config",
    "SharedRead": "_exchange",
    "Sleep": "_exchange",
    "SpecProblem": "_errors",
    "SpecValidationError": "_errors",
    "UnknownTaskError": "_errors",
    "call": "_exchange",
    "connect_message": "_advice",
    "duplicate_id_in": "_http",
    "exchange": "_exchange",
    "is_fatal": "_errors",
    "raise_for_status": "_http",
    "read_timeout": "_exchange",
    "request_headers": "_exchange",
    "seg": "_http",
    "ssl_reason": "_advice",
    "tls_message": "_advice",
    "transport_error": "_advice",
    "TransportFailure": "_advice",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "USER_AGENT",
    "ClusterConfig",
    "DruidAuthError",
    "DruidConnectionError",
    "DruidEmptyIngestionError",
    "DruidEmptyInputError",
    "DruidError",
    "DruidFatalError",
    "DruidNotFoundError",
    "DruidProtocolError",
    "DruidRetriesExhaustedError",
    "DruidTLSError",
    "DruidTaskFailedError",
    "DruidTimeoutError",
    "DruidTransientError",
    "DruidUsageError",
    "DruidValidationError",
    "DruidWaitTimeoutError",
    "DuplicateTaskIdError",
    "Exchange",
    "HandoffNeverError",
    "HttpCall",
    "Operation",
    "PollSchedule",
    "Progress",
    "ProgressSink",
    "Request",
    "Response",
    "RetryPolicy",
    "Secret",
    "Service",
    "SharedRead",
    "Sleep",
    "SpecProblem",
    "SpecValidationError",
    "TransportFailure",
    "UnknownTaskError",
    "call",
    "connect_message",
    "duplicate_id_in",
    "exchange",
    "is_fatal",
    "raise_for_status",
    "read_timeout",
    "request_headers",
    "seg",
    "ssl_reason",
    "tls_message",
    "transport_error",
]
