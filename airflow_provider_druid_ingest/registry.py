"""The one registration table of the provider: every public operator, sensor, trigger, hook, link and decorator.

The subpackages' lazy names and ``__all__`` and the provider metadata (``get_provider_info``) are derived from
it, so a new class is registered by one line here (tests/airflow/test_registration.py checks the rest agree).
Importing this module imports nothing: provider metadata is read without Airflow's heavy modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["BASES", "CONFIG", "CONNECTION_HOOK", "REGISTRY", "TASK_DECORATORS", "class_paths", "lazy_getattr",
           "modules"]

_P = "airflow_provider_druid_ingest"

#: kind -> class name -> the module that defines it
REGISTRY: dict[str, dict[str, str]] = {
    "operators": {
        "DruidSubmitOperator": f"{_P}.operators.submit",
        "DruidIngestOperator": f"{_P}.operators.ingest",
        "DruidMsqIngestOperator": f"{_P}.operators.msq",
        "DruidCompactOperator": f"{_P}.operators.compact",
        "DruidKillOperator": f"{_P}.operators.kill",
        "DruidDropOperator": f"{_P}.operators.drop",
        "DruidRestoreOperator": f"{_P}.operators.restore",
        "DruidPauseAutoCompactionOperator": f"{_P}.operators.auto_compaction",
        "DruidResumeAutoCompactionOperator": f"{_P}.operators.auto_compaction",
    },
    "sensors": {
        "DruidTaskSensor": f"{_P}.sensors.task",
        "DruidHandoffSensor": f"{_P}.sensors.handoff",
    },
    "triggers": {
        "DruidTaskTrigger": f"{_P}.triggers.task",
        "DruidHandoffTrigger": f"{_P}.triggers.handoff",
        "DruidIngestionTrigger": f"{_P}.triggers.ingestion",
        "DruidSegmentStateTrigger": f"{_P}.triggers.segment_state",
        "DruidServedTrigger": f"{_P}.triggers.served",
    },
    "hooks": {"DruidHook": f"{_P}.hooks.druid", "DruidSqlHook": f"{_P}.hooks.druid_sql"},
    "links": {"DruidTaskLink": f"{_P}.links"},
}

#: the hook Airflow builds for a ``druid_cluster`` connection (``conn.get_hook()``: common.sql's operators, the
#: UI's Test button): the DbApiHook subclass of DruidHook, so common.sql accepts the connection
CONNECTION_HOOK = "DruidSqlHook"

#: TaskFlow decorators (provider metadata's ``task-decorators``): ``@task.<name>`` -> the factory's path
TASK_DECORATORS: dict[str, str] = {
    "druid_ingest": f"{_P}.decorators.ingest.druid_ingest_task",
    "druid_msq": f"{_P}.decorators.ingest.druid_msq_task",
}

#: shared base classes that are public in their module but registered nowhere (not meant for a DAG)
BASES = frozenset({"DruidPlanOperator", "DruidSegmentWriteOperator", "DruidSpecOperator", "DruidWorkOperator",
                   "DruidWaitTrigger"})


#: the provider's ``[druid_ingest]`` section (provider metadata's ``config``): every option the code reads, so
#: ``airflow config list`` shows it; tests/airflow/test_config_section.py checks code and table agree
CONFIG: dict[str, dict[str, Any]] = {
    "druid_ingest": {
        "description": "Deployment-wide defaults of the Druid ingestion operators and sensors.",
        "options": {
            "default_deferrable": {
                "description": "Whether DruidIngestOperator, DruidMsqIngestOperator, DruidTaskSensor, "
                "DruidHandoffSensor and the @task.druid_ingest/@task.druid_msq decorators wait in the triggerer "
                "when a task does not pass deferrable=. A Druid wait "
                "lasts minutes to hours, so the default is True (unlike [operators] default_deferrable); False "
                "makes them wait in the worker, holding a worker slot.",
                "version_added": "0.1.0",
                "type": "boolean",
                "example": "False",
                "default": "True",
            },
        },
    },
}


def modules(kind: str) -> list[str]:
    """The modules holding ``kind``'s classes, in table order, each once (provider metadata's python-modules)."""
    return list(dict.fromkeys(REGISTRY[kind].values()))


def class_paths(kind: str) -> list[str]:
    """``module.Class`` for each of ``kind``'s classes (provider metadata's extra-links)."""
    return [f"{module}.{name}" for name, module in REGISTRY[kind].items()]


def lazy_getattr(kind: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports a class's module on first use, so one import pulls in no other."""
    where = REGISTRY[kind]

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(where[name]), name)
        raise AttributeError(name)

    return __getattr__
