"""The three distributions of this repository: one version, the right dependencies, faces that resolve.

``druid-ingest`` (packages/druid-ingest), ``dagster-druid-ingest`` (packages/dagster-druid-ingest) and the
provider (the root) are released together: the version is written in each package's ``__init__`` (hatchling
reads it there) and in the pins between them, and this test keeps all of them equal.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECTS = {
    "airflow-provider-druid-ingest": ROOT / "pyproject.toml",
    "druid-ingest": ROOT / "packages" / "druid-ingest" / "pyproject.toml",
    "dagster-druid-ingest": ROOT / "packages" / "dagster-druid-ingest" / "pyproject.toml",
}
ROOMS = ("wire", "planning", "api", "ops", "clients")


def _project(dist: str) -> dict:
    return tomllib.loads(PYPROJECTS[dist].read_text())


def _version(dist: str) -> str:
    data = tomllib.loads(PYPROJECTS[dist].read_text())
    init = PYPROJECTS[dist].parent / data["tool"]["hatch"]["version"]["path"]
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__version__":
            return str(node.value.value)  # type: ignore[attr-defined]
    raise AssertionError(f"no __version__ in {init}")


def _pins(dist: str) -> dict[str, str]:
    project = _project(dist)["project"]
    extras = project.get("optional-dependencies", {}).values()
    reqs = list(project["dependencies"]) + [r for extra in extras for r in extra]
    return {m.group(1): m.group(2) for r in reqs if (m := re.fullmatch(r"((?:dagster-)?druid-ingest)==(\S+)", r))}


def test_one_version_for_the_three_distributions() -> None:
    versions = {dist: _version(dist) for dist in PYPROJECTS}
    assert len(set(versions.values())) == 1, versions
    (version,) = set(versions.values())
    pins = {f"{dist} -> {dep}": v for dist in PYPROJECTS for dep, v in _pins(dist).items()}
    assert pins == {
        "airflow-provider-druid-ingest -> druid-ingest": version,
        "airflow-provider-druid-ingest -> dagster-druid-ingest": version,
        "dagster-druid-ingest -> druid-ingest": version,
    }


def test_the_core_depends_on_requests_aiohttp_jinja2_only() -> None:
    deps = {re.split(r"[<>=!~\[ ]", d)[0] for d in _project("druid-ingest")["project"]["dependencies"]}
    assert deps == {"requests", "aiohttp", "jinja2"}
    dagster = {re.split(r"[<>=!~\[ ]", d)[0] for d in _project("dagster-druid-ingest")["project"]["dependencies"]}
    assert dagster == {"druid-ingest", "dagster"}


def test_entry_points_live_with_the_code_they_name() -> None:
    core = _project("druid-ingest")["project"]
    assert core["scripts"] == {"druid-ingest": "druid_ingest.cli:main"}
    assert core["entry-points"]["pytest11"] == {"druid_ingest_fake": "druid_ingest.testing.pytest_plugin"}
    provider = _project("airflow-provider-druid-ingest")["project"]
    assert "scripts" not in provider  # one `druid-ingest` script: the core's; the provider adds check-dags to it
    assert provider["entry-points"]["druid_ingest.cli"] == {
        "check-dags": "airflow_provider_druid_ingest.cli_check_dags:register"
    }
    for target in [*core["scripts"].values(), *core["entry-points"]["pytest11"].values(),
                   *provider["entry-points"]["druid_ingest.cli"].values()]:
        module, _, attr = target.partition(":")
        mod = importlib.import_module(module)
        assert not attr or hasattr(mod, attr), target


@pytest.mark.parametrize("face", ["druid_ingest", *(f"druid_ingest.{room}" for room in ROOMS)])
def test_every_public_name_resolves(face: str) -> None:
    """Each name of a face's ``__all__`` resolves (the lazy tables name a real module and attribute)."""
    mod = importlib.import_module(face)
    missing = [name for name in mod.__all__ if getattr(mod, name, None) is None]
    assert not missing, f"{face}: {missing}"


def test_importing_the_core_pulls_in_no_client_library() -> None:
    """DAG files import the core at parse time: the faces are lazy, so no requests, aiohttp or jinja2 until used."""
    import subprocess

    code = (
        "import sys, druid_ingest, druid_ingest.wire, druid_ingest.planning, druid_ingest.api, druid_ingest.ops, "
        "druid_ingest.clients; "
        "print(sorted(m for m in ('requests', 'aiohttp', 'jinja2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_unreleased_core_alias_is_gone() -> None:
    """0.1.0 was never released, so the provider keeps no ``core`` alias of ``druid_ingest``."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("airflow_provider_druid_ingest.core")
