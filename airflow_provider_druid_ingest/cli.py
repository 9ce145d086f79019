"""The provider's ``druid-ingest``: the core's command line with ``check-dags`` (it reads Airflow DAGs) added.

Installed, the core's ``druid-ingest`` finds ``check-dags`` through the ``druid_ingest.cli`` entry point group;
this module adds it explicitly, so ``python -m airflow_provider_druid_ingest`` has it in any checkout.
"""

from __future__ import annotations

from collections.abc import Sequence

from druid_ingest.cli import main as core_main

from airflow_provider_druid_ingest.cli_check_dags import register

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    return core_main(argv, extensions={"check-dags": register})
