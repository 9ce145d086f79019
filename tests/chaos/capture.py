"""Everything the run writes, for the secret check: every log record (DEBUG and up, with its traceback), and
whatever reaches stdout/stderr (structlog, Airflow's task-SDK loggers), at the file-descriptor level too."""

from __future__ import annotations

import io
import logging
import os
import sys
import tempfile
from typing import Any

__all__ = ["Capture"]


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a record whose args do not format: keep its raw parts
            text = f"{record.msg!r} {record.args!r}"
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.lines.append(f"{record.name} {record.levelname} {text}")


class Capture:
    """Context manager: collects log records and stdout/stderr; ``echo`` still reaches the real terminal."""

    def __init__(self) -> None:
        self.records = _Records()
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - kept open across __enter__/__exit__
        self._sys = io.StringIO()
        self._saved: dict[str, Any] = {}

    def __enter__(self) -> Capture:
        root = logging.getLogger()
        self._saved = {"level": root.level, "stdout": sys.stdout, "stderr": sys.stderr}
        root.addHandler(self.records)
        root.setLevel(logging.DEBUG)
        sys.stdout.flush()
        sys.stderr.flush()
        self._saved["fd1"], self._saved["fd2"] = os.dup(1), os.dup(2)
        os.dup2(self._file.fileno(), 1)
        os.dup2(self._file.fileno(), 2)
        sys.stdout = sys.stderr = self._sys
        return self

    CANARY = "chaos-capture-canary"

    def canary(self) -> None:
        logging.getLogger("airflow.task").warning("%s in a log record", self.CANARY)
        print(f"{self.CANARY} on stdout", flush=True)
        os.write(1, f"{self.CANARY} on fd 1\n".encode())

    def echo(self, line: str) -> None:
        os.write(self._saved["fd1"], (line + "\n").encode())

    def __exit__(self, *exc: object) -> None:
        sys.stdout, sys.stderr = self._saved["stdout"], self._saved["stderr"]
        os.dup2(self._saved["fd1"], 1)
        os.dup2(self._saved["fd2"], 2)
        os.close(self._saved["fd1"])
        os.close(self._saved["fd2"])
        root = logging.getLogger()
        root.removeHandler(self.records)
        root.setLevel(self._saved["level"])

    def canaries_seen(self) -> int:
        """How many of the three capture paths (log records, sys.stdout, fd 1) saw the canary."""
        return sum(self.CANARY in text for text in self.texts()[-3:])

    def texts(self) -> list[str]:
        self._file.seek(0)
        records = "\n".join(self.records.lines)
        return [records, self._sys.getvalue(), self._file.read().decode("utf-8", "replace")]
