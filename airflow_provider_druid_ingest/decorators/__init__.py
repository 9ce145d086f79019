"""TaskFlow decorators: ``@task.druid_ingest`` (the function returns the spec) and ``@task.druid_msq`` (the MSQ
statement). Registered under ``task-decorators`` in the provider metadata (see ``registry.TASK_DECORATORS``)."""

from airflow_provider_druid_ingest.decorators.ingest import ForIntervals

__all__ = ["ForIntervals"]
