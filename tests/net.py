"""Network helpers the suites share."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released): a "wrong port" or a server's own port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
