"""Every Druid trigger survives a triggerer restart with every constructor argument intact.

A rebuilt trigger's ``serialize()`` compared with itself cannot catch a field that ``serialize`` forgets (the
rebuilt one silently takes the default). Here each trigger is built with a NON-default value for every argument
of its constructor (and its bases'), and the rebuilt trigger's kwargs must equal those ORIGINAL arguments.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import pytest

from airflow_provider_druid_ingest.triggers.base import DruidWaitTrigger
from airflow_provider_druid_ingest.triggers.handoff import DruidHandoffTrigger
from airflow_provider_druid_ingest.triggers.ingestion import DruidIngestionTrigger
from airflow_provider_druid_ingest.triggers.segment_state import DruidSegmentStateTrigger
from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger

from ..helpers import import_string

COMMON: dict[str, Any] = {
    "conn_id": "druid_other",
    "end_time": 1_900_000_000.5,
    "poll_interval": 0.25,
    "max_poll_interval": 7.0,
    "poll_multiplier": 2.5,
    "retry": {"max_attempts": 9, "initial_delay": 0.3, "max_delay": 4.0, "deadline": 99.0},
    "detect_within": 0.75,
    "check_every": 1800.0,
}
TARGET: dict[str, Any] = {
    "task_id": "index_parallel_wiki_x",
    "datasource": "wiki_rt",
    "intervals": ["2024-01-01T00:00:00.000Z/2024-01-02T00:00:00.000Z", "2024-01-05/2024-01-06"],
    "min_version": "2024-05-01T00:00:00.000Z",
    "append": True,
    "segments_published": 3,
    "version_ceiling": "2024-05-01T00:00:09.000Z",
    "task_message": "No valid rows for range partitioning",
    "rows_processed": 1234,
    "ended_at": 1714521609.5,  # the handoff looks are placed from it
}
CASES: dict[type[DruidWaitTrigger], dict[str, Any]] = {
    DruidTaskTrigger: {"druid_task_id": "index_parallel_wiki_x", "shutdown_on_kill": False, "log_progress": False,
                       **COMMON},
    DruidIngestionTrigger: {"druid_task_id": "index_parallel_wiki_x", "shutdown_on_kill": False,
                            "log_progress": False, "datasource": "wiki_rt",
                            "intervals": ["2024-01-01/2024-01-02", "2024-01-05/2024-01-06"], "append": True,
                            "handoff_timeout": 12.5, "submitted_at": 1_899_999_000.25, **COMMON},
    DruidHandoffTrigger: {"target": TARGET, **COMMON},
    DruidSegmentStateTrigger: {"datasource": "wiki_rt", "interval": "2024-01-01T00:00:00.000Z/2024-01-02T00:00:00.000Z",
                               "name": "drop_wiki_rt_20240101-20240102_x", "marked": 24, "wants_served": True,
                               "allow_empty": True, **COMMON},
}


def _parameters(cls: type) -> dict[str, inspect.Parameter]:
    """Every named constructor argument of ``cls`` and of the Druid trigger bases its ``**kwargs`` reach."""
    found: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        if not (isinstance(klass, type) and issubclass(klass, DruidWaitTrigger)):
            continue
        for name, param in inspect.signature(klass.__init__).parameters.items():
            if name != "self" and param.kind not in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
                found.setdefault(name, param)
    return found


def test_every_trigger_class_is_covered() -> None:
    import airflow_provider_druid_ingest.triggers as package

    classes = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        classes |= {obj for obj in vars(module).values() if isinstance(obj, type) and
                    issubclass(obj, DruidWaitTrigger) and obj is not DruidWaitTrigger}
    assert classes == set(CASES)


@pytest.mark.parametrize("cls", list(CASES), ids=lambda c: c.__name__)
def test_rebuilt_trigger_keeps_every_constructor_argument(cls: type[DruidWaitTrigger]) -> None:
    args = CASES[cls]
    params = _parameters(cls)
    assert set(args) == set(params), "give every constructor argument a value here"
    for name, param in params.items():
        assert param.default is param.empty or args[name] != param.default, f"{name} must not be its default"

    classpath, kwargs = cls(**args).serialize()
    assert import_string(classpath) is cls
    for name, value in args.items():
        assert kwargs.get(name, "<missing>") == value, name
    assert set(kwargs) == set(args)

    rebuilt_classpath, rebuilt = import_string(classpath)(**kwargs).serialize()
    assert rebuilt_classpath == classpath
    for name, value in args.items():  # the trigger the triggerer rebuilds, against the ORIGINAL arguments
        assert rebuilt.get(name, "<missing>") == value, name
