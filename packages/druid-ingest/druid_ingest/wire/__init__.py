"""The wire: the HTTP call model, the one exchange loop (redirects, retries), the retry policy and the cluster
config. Nothing here knows an endpoint or a Druid task; the errors it raises live in ``druid_ingest.errors``.

The public face of the room: every name in ``__all__`` resolves on first use (importing the room is cheap, as DAG
files need); the modules behind it are private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from druid_ingest._lazy import lazy_face

if TYPE_CHECKING:
    from ._advice import TransportFailure, connect_message, ssl_reason, tls_message, transport_error, tunnel_refusal
    from ._client_cert import check_client_cert, load_client_cert
    from ._config import ClusterConfig, Secret, Service
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
    from ._retry import RetryPolicy

#: where each public name lives
_WHERE = {
    "USER_AGENT": "_exchange",
    "ClusterConfig": "_config",
    "Exchange": "_exchange",
    "HttpCall": "_exchange",
    "Operation": "_exchange",
    "Progress": "_exchange",
    "ProgressSink": "_exchange",
    "Request": "_http",
    "Response": "_http",
    "RetryPolicy": "_retry",
    "Secret": "_config",
    "Service": "_config",
    "SharedRead": "_exchange",
    "Sleep": "_exchange",
    "call": "_exchange",
    "check_client_cert": "_client_cert",
    "connect_message": "_advice",
    "duplicate_id_in": "_http",
    "exchange": "_exchange",
    "load_client_cert": "_client_cert",
    "raise_for_status": "_http",
    "read_timeout": "_exchange",
    "request_headers": "_exchange",
    "seg": "_http",
    "ssl_reason": "_advice",
    "tls_message": "_advice",
    "transport_error": "_advice",
    "tunnel_refusal": "_advice",
    "TransportFailure": "_advice",
}


__getattr__ = lazy_face(__name__, _WHERE, globals())


__all__ = [
    "USER_AGENT",
    "ClusterConfig",
    "Exchange",
    "HttpCall",
    "Operation",
    "Progress",
    "ProgressSink",
    "Request",
    "Response",
    "RetryPolicy",
    "Secret",
    "Service",
    "SharedRead",
    "Sleep",
    "TransportFailure",
    "call",
    "check_client_cert",
    "connect_message",
    "duplicate_id_in",
    "exchange",
    "load_client_cert",
    "raise_for_status",
    "read_timeout",
    "request_headers",
    "seg",
    "ssl_reason",
    "tls_message",
    "transport_error",
    "tunnel_refusal",
]
