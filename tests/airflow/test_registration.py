"""Every public operator, sensor, trigger, hook and link is registered everywhere Airflow or a DAG author looks.

The classes are found by walking the provider's modules (what the code defines), then each registration place
is checked against them: the package's lazy name table, its ``__all__``, its type-checking imports, and the
provider metadata Airflow's ProvidersManager reads. A class added to a module but forgotten in one place fails.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from airflow.sdk import BaseHook, BaseOperator, BaseOperatorLink, BaseSensorOperator
from airflow.triggers.base import BaseTrigger

import airflow_provider_druid_ingest as provider
from airflow_provider_druid_ingest.get_provider_info import get_provider_info
from airflow_provider_druid_ingest.registry import BASES, REGISTRY

PACKAGE = provider.__name__
KINDS = {  # kind -> (its subpackage, the Airflow base class, the provider-metadata key)
    "operators": ("operators", BaseOperator, "operators"),
    "sensors": ("sensors", BaseSensorOperator, "sensors"),
    "triggers": ("triggers", BaseTrigger, "triggers"),
    "hooks": ("hooks", BaseHook, "hooks"),
}


def _defined(subpackage: str, base: type) -> dict[str, str]:
    """Public classes of ``base``'s kind that the subpackage's modules define and export: name -> module."""
    pkg = importlib.import_module(f"{PACKAGE}.{subpackage}")
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not (inspect.isclass(obj) and issubclass(obj, base) and obj.__module__ == mod.__name__):
                continue
            if base is BaseOperator and issubclass(obj, BaseSensorOperator):
                continue
            if name not in BASES:
                found[name] = mod.__name__
    return found


def _type_checking_imports(subpackage: str) -> dict[str, str]:
    """Names the package's ``__init__`` imports under ``if TYPE_CHECKING:`` (what type checkers and IDEs see)."""
    tree = ast.parse(Path(importlib.import_module(f"{PACKAGE}.{subpackage}").__file__ or "").read_text())
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    names.update({a.name: stmt.module or "" for a in stmt.names})
    return names


def _metadata_modules(key: str) -> set[str]:
    return {m for entry in get_provider_info()[key] for m in entry["python-modules"]}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_class_is_in_the_table_and_every_registration_place(kind):
    subpackage, base, key = KINDS[kind]
    defined = _defined(subpackage, base)
    assert defined, f"no {kind} found in {PACKAGE}.{subpackage}"
    assert REGISTRY[kind] == defined, f"the registration table's {kind} differ from the classes the code defines"
    pkg = importlib.import_module(f"{PACKAGE}.{subpackage}")
    assert sorted(pkg.__all__) == sorted(defined), f"{pkg.__name__}.__all__"
    assert _type_checking_imports(subpackage) == defined, f"{pkg.__name__}'s TYPE_CHECKING imports"
    for name, module in defined.items():
        assert getattr(pkg, name) is getattr(importlib.import_module(module), name), f"{pkg.__name__}.{name}"
    assert _metadata_modules(key) == set(defined.values()), f"get_provider_info()[{key!r}]"


def test_links_are_in_the_table_and_the_provider_metadata():
    mod = importlib.import_module(f"{PACKAGE}.links")
    links = [n for n in mod.__all__ if inspect.isclass(c := getattr(mod, n)) and issubclass(c, BaseOperatorLink)]
    defined = dict.fromkeys(links, mod.__name__)
    assert REGISTRY["links"] == defined
    assert set(get_provider_info()["extra-links"]) == {f"{m}.{n}" for n, m in defined.items()}


def test_the_hook_of_the_connection_type_is_registered():
    hooks = {f"{m}.{n}" for n, m in REGISTRY["hooks"].items()}
    assert {c["hook-class-name"] for c in get_provider_info()["connection-types"]} <= hooks


def test_task_decorators_are_in_the_table_the_provider_metadata_and_airflows_task():
    """Every decorator the decorators package exports is registered, and ``@task.<name>`` resolves to it."""
    from airflow.sdk import task
    from airflow.sdk.providers_manager_runtime import ProvidersManagerTaskRuntime

    from airflow_provider_druid_ingest.registry import TASK_DECORATORS

    pkg = importlib.import_module(f"{PACKAGE}.decorators")
    exported = {f"{pkg.__name__}.{info.name}.{name}"
                for info in pkgutil.iter_modules(pkg.__path__)
                for name in importlib.import_module(f"{pkg.__name__}.{info.name}").__all__}
    assert set(TASK_DECORATORS.values()) == exported
    assert {(d["name"], d["class-name"]) for d in get_provider_info()["task-decorators"]} == set(
        TASK_DECORATORS.items())
    runtime = ProvidersManagerTaskRuntime().taskflow_decorators
    for name, path in TASK_DECORATORS.items():
        module, _, attr = path.rpartition(".")
        assert runtime[name] is getattr(importlib.import_module(module), attr)
        assert getattr(task, name) is runtime[name]
