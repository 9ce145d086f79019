"""Drive Apache Druid native batch ingestion from an orchestrator.

Importing this package is cheap on purpose: DAG files import operators from it at parse time,
so nothing here pulls in aiohttp, Airflow internals or the fake Druid.
"""

__version__ = "0.1.0"
