"""``python -m airflow_provider_druid_ingest``: the ``druid-ingest`` command line."""

from airflow_provider_druid_ingest.cli import main

raise SystemExit(main())
