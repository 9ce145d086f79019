"""``[core] hostname_callable`` of the celery-mode services of ``airflow.sh``: two triggerers and two workers on one
machine need distinct hostnames (the Job table, the task instances and the Celery worker names show them)."""

from __future__ import annotations

import os
import socket


def hostname() -> str:
    """``AIRFLOW_DEV_HOSTNAME`` (set by airflow.sh per service), else the machine's FQDN like Airflow's default."""
    return os.environ.get("AIRFLOW_DEV_HOSTNAME") or socket.getfqdn()
