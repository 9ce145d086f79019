"""Loading the TLS client certificate once, when a client is built, so a wrong path or a key that does not belong
to the certificate is a clear error naming the field before any call, and the same for both transports.

requests would load the files per connection (an ``OSError`` from inside the first call) and aiohttp's context
raises bare ``FileNotFoundError``/``ssl.SSLError``; neither says which ClusterConfig field is wrong.
"""

from __future__ import annotations

import os
import ssl

from druid_ingest.errors import DruidUsageError
from druid_ingest.wire._config import ClusterConfig

__all__ = ["check_client_cert", "load_client_cert"]

_FIX = ("give PEM files readable on the machine that runs the client (in Airflow the connection's client_cert and "
        "client_key extras), the key unencrypted")


def load_client_cert(context: ssl.SSLContext, cert: str, key: str | None) -> None:
    """``context.load_cert_chain(cert, key)``, with DruidUsageError naming ``client_cert``/``client_key``."""
    for field, path in (("client_cert", cert), ("client_key", key)):
        if path is not None and not os.path.isfile(path):
            raise DruidUsageError(f"ClusterConfig `{field}` {path!r} does not exist (or is not a file): {_FIX}")
    try:
        context.load_cert_chain(cert, key)
    except ssl.SSLError as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        if "KEY_VALUES_MISMATCH" in str(reason).upper() and key is not None:
            raise DruidUsageError(
                f"ClusterConfig `client_key` {key!r} is not the private key of `client_cert` {cert!r} ({reason}): "
                "give the key the certificate was issued for") from None
        with_key = f" (with `client_key` {key!r})" if key else " (the key in the same file)"
        raise DruidUsageError(
            f"ClusterConfig `client_cert` {cert!r}{with_key} could not be loaded ({reason}): {_FIX}") from None
    except OSError as exc:
        raise DruidUsageError(
            f"ClusterConfig `client_cert` {cert!r} could not be read ({exc.strerror or exc}): {_FIX}") from None


def check_client_cert(config: ClusterConfig) -> None:
    """Load the configured client certificate into a throwaway context (for the requests transport, which loads
    it again per connection); nothing when none is configured."""
    if config.client_cert:
        load_client_cert(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), config.client_cert, config.client_key)
