"""``python -m druid_ingest.cli``: the ``druid-ingest`` command line (as when ``cli`` was one module)."""

from druid_ingest.cli import main

raise SystemExit(main())
