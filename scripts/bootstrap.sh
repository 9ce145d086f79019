#!/usr/bin/env bash
# Create .venv and install the package with its dev extras, the postgres extra (dev/airflow's deployment), the
# Dagster face's extra (tests/dagster) and the OpenLineage extra (tests/airflow/test_openlineage.py). Idempotent:
# skips pip when pyproject.toml has not changed since the last successful install. Fails loudly when Python is missing or too old.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
PY="${PYTHON:-python3}"
command -v "$PY" >/dev/null || { echo "bootstrap: $PY not found; install Python >= 3.10" >&2; exit 1; }
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "bootstrap: Python >= 3.10 required" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  echo "bootstrap: installing airflow-provider-druid-ingest[dev,postgres,dagster,openlineage] into .venv (first run: minutes)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[dev,postgres,dagster,openlineage]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
