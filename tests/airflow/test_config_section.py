"""The ``[druid_ingest]`` section is declared in the provider metadata: every option the code reads, each with
its description, type, example and default, valid against Airflow's provider_info schema and listed by
``airflow config list``."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest

from airflow_provider_druid_ingest.get_provider_info import get_provider_info

from .conftest import AIRFLOW_BIN, REPO

SECTION = "druid_ingest"
_GETTERS = {"get", "getboolean", "getint", "getfloat", "getlist", "getjson"}


def _options_read_by_the_code() -> dict[str, ast.expr | None]:
    """``conf.get*("druid_ingest", "<option>", fallback=...)`` calls in the provider: option -> its fallback."""
    found: dict[str, ast.expr | None] = {}
    for path in (REPO / "airflow_provider_druid_ingest").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _GETTERS and len(node.args) >= 2):
                continue
            section, option = node.args[0], node.args[1]
            if isinstance(section, ast.Constant) and section.value == SECTION and isinstance(option, ast.Constant):
                found[option.value] = next((k.value for k in node.keywords if k.arg == "fallback"), None)
    return found


def test_every_option_the_code_reads_is_declared_with_its_default():
    declared = get_provider_info()["config"][SECTION]["options"]
    read = _options_read_by_the_code()
    assert read, "no [druid_ingest] option found in the code: the scan is broken"
    assert set(declared) == set(read)
    for option, fallback in read.items():
        entry = declared[option]
        assert entry["description"] and entry["example"] is not None and entry["version_added"]
        if isinstance(fallback, ast.Constant):  # the code's fallback and the declared default agree
            assert entry["default"] == str(fallback.value), option


def test_provider_info_is_valid_against_airflows_schema():
    jsonschema = pytest.importorskip("jsonschema")
    import airflow

    schema = json.loads((Path(airflow.__file__).parent / "provider_info.schema.json").read_text())
    jsonschema.validate(get_provider_info(), schema)


def test_airflow_config_list_shows_the_section():
    out = subprocess.run([AIRFLOW_BIN, "config", "list", "--section", SECTION, "--include-descriptions",
                          "--show-values"],
                         capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"[{SECTION}]" in out.stdout
    assert "default_deferrable = True" in out.stdout
    assert "triggerer" in out.stdout  # the description says what the option changes
