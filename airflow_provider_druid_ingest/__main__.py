"""``python -m airflow_provider_druid_ingest``: ``druid-ingest`` with the provider's ``check-dags``."""

from airflow_provider_druid_ingest.cli import main

raise SystemExit(main())
