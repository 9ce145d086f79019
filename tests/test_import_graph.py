"""The import graph of the three distributions: no circle anywhere, faces use only the core's public faces.

Read with ``ast`` (nothing is imported), over every import statement, type-only (``if TYPE_CHECKING:``) and
function-level ones included: a circle that only type checkers or a lazy import see is still one the next
refactor trips over. An import of ``pkg.mod`` is an edge to ``pkg.mod``; ``from pkg import name`` is an edge to
``pkg.name`` when that is a module, else to ``pkg`` (its ``__init__``). The implicit import of a parent package
is not an edge (every submodule has one).

Faces are the provider, the Dagster integration, the core's CLI and its fake Druid: each may import the core
only as ``druid_ingest`` or one room ``druid_ingest.<room>`` (a subpackage with ``__all__``), and only names that
face lists in ``__all__``. Tests are not faces: they may reach private modules to test them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: import name -> source folder, for the packages this checkout has
PACKAGES = {
    name: path
    for name, path in {
        "airflow_provider_druid_ingest": ROOT / "airflow_provider_druid_ingest",
        "druid_ingest": ROOT / "packages" / "druid-ingest" / "druid_ingest",
        "dagster_druid_ingest": ROOT / "packages" / "dagster-druid-ingest" / "dagster_druid_ingest",
    }.items()
    if path.is_dir()
}
CORE = "druid_ingest"
#: modules of the core distribution that consume the rooms like any other face
CORE_FACES = ("druid_ingest.cli", "druid_ingest.__main__", "druid_ingest.testing")
#: third-party packages a distribution must never import (the reason it is its own distribution)
FORBIDDEN = {"druid_ingest": ("airflow", "dagster"), "dagster_druid_ingest": ("airflow",)}


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module
    imports: list[tuple[str, tuple[str, ...], int]] = field(default_factory=list)  # (module, names, line)


def _modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for top, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [top, *path.relative_to(folder).with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            name = ".".join(parts)
            found[name] = Module(name, path, is_package, ast.parse(path.read_text(encoding="utf-8")))
    for mod in found.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Import):
                mod.imports += [(alias.name, (), node.lineno) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.name.split(".") if mod.is_package else mod.name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join([*base, node.module] if node.module else base)
                else:
                    target = node.module or ""
                mod.imports.append((target, tuple(a.name for a in node.names), node.lineno))
    return found


MODULES = _modules()


def _edges(mod: Module) -> set[str]:
    out: set[str] = set()
    for target, names, _line in mod.imports:
        subs = {f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES}
        if subs:
            out |= subs
        if target in MODULES and (not names or len(subs) < len(names)):
            out.add(target)
    out.discard(mod.name)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _is_face(name: str) -> bool:
    if name.split(".")[0] != CORE:
        return True
    return any(name == f or name.startswith(f + ".") for f in CORE_FACES)


def _declared_all(mod: Module) -> set[str] | None:
    for node in mod.tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {elt.value for elt in node.value.elts if isinstance(elt, ast.Constant)}  # type: ignore[attr-defined]
    return None


def _public_faces() -> dict[str, set[str]]:
    """The core's faces a consumer may import: the top package and each room (a subpackage with ``__all__``)."""
    faces: dict[str, set[str]] = {}
    for name, mod in MODULES.items():
        parts = name.split(".")
        if parts[0] != CORE or len(parts) > 2 or not mod.is_package:
            continue
        declared = _declared_all(mod)
        if declared is not None and not any(p.startswith("_") for p in parts):
            faces[name] = declared
    return faces


def test_the_three_packages_are_read() -> None:
    assert "airflow_provider_druid_ingest" in PACKAGES
    assert len(MODULES) > 50


def test_no_import_circle() -> None:
    graph = {name: _edges(mod) for name, mod in MODULES.items()}
    cycles = _cycles(graph)
    assert not cycles, "import circles (type-only and lazy imports count):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_faces_import_only_public_faces() -> None:
    faces = _public_faces()
    problems = []
    for name, mod in sorted(MODULES.items()):
        if not _is_face(name):
            continue
        for target, names, line in mod.imports:
            if target.split(".")[0] != CORE or _is_face(target):
                continue
            where = f"{mod.path.relative_to(ROOT)}:{line}"
            if target not in faces:
                problems.append(f"{where}: imports {target} (not a public face of the core)")
                continue
            hidden = sorted(set(names) - faces[target])
            if hidden:
                problems.append(f"{where}: imports {hidden} from {target} (not in its __all__)")
    assert not problems, "\n".join(problems)


def test_rooms_and_faces_exist() -> None:
    """The core's rooms: each a public face with ``__all__`` (the face rule above would pass vacuously without)."""
    if CORE not in PACKAGES:
        pytest.fail("the core is not its own package yet (packages/druid-ingest/druid_ingest)")
    assert set(_public_faces()) >= {
        "druid_ingest", "druid_ingest.errors", "druid_ingest.wire", "druid_ingest.planning", "druid_ingest.api",
        "druid_ingest.ops", "druid_ingest.clients",
    }


def test_no_forbidden_dependency() -> None:
    problems = []
    for name, mod in sorted(MODULES.items()):
        for banned in FORBIDDEN.get(name.split(".")[0], ()):
            problems += [
                f"{mod.path.relative_to(ROOT)}:{line}: imports {target}"
                for target, _names, line in mod.imports
                if target == banned or target.startswith(banned + ".")
            ]
    assert not problems, "\n".join(problems)


def test_the_circle_finder_finds_planted_circles() -> None:
    """The checks above can fail: a two-module circle and a longer one are found, a chain is not."""
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c", "f"}, "f": set()}
    assert sorted(_cycles(graph)) == [["a", "b"], ["c", "d", "e"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def _room(name: str) -> str:
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else parts[0]


def test_no_room_reaches_into_another_rooms_private_module() -> None:
    """Inside the core, a room uses another through its face or its public modules (``api.endpoints``, the
    operations the clients drive: ``ops.operations``, ``ops.waits`` ...), never a ``_private`` module of it, so
    a room may rearrange its private modules without breaking another."""
    problems = []
    for name, mod in sorted(MODULES.items()):
        if name.split(".")[0] != CORE or _is_face(name):
            continue
        for target, names, line in mod.imports:
            if target.split(".")[0] != CORE or _room(target) == _room(name):
                continue
            reached = [target, *(f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES)]
            private = [t for t in reached if any(p.startswith("_") for p in t.split(".")[2:])]
            if private:
                problems.append(f"{mod.path.relative_to(ROOT)}:{line}: {name} imports {', '.join(private)}")
    assert not problems, "\n".join(problems)
