"""``python -m druid_ingest``: the ``druid-ingest`` command line."""

from druid_ingest.cli import main

raise SystemExit(main())
