"""A throwaway Airflow home (SQLite, no DAGs), set before anything imports Airflow: the chaos run needs no
metadata database (connections come from an environment variable), only Airflow's configuration."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

USER = "chaos-admin"
PASSWORD = "Chaos-pa55-7f3e9c"  # the known secret: it must never appear in any text the run collects


def prepare() -> None:
    if "AIRFLOW_HOME" in os.environ:
        return
    home = Path(tempfile.mkdtemp(prefix="druid-ingest-chaos-"))
    (home / "dags").mkdir()
    os.environ.update({
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
        "AIRFLOW__CORE__DAGS_FOLDER": str(home / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",
    })
