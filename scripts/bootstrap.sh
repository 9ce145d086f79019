#!/usr/bin/env bash
# Create .venv and install the three distributions of this repository editable, in one pip command: the core
# (packages/druid-ingest), the Dagster integration (packages/dagster-druid-ingest, for tests/dagster_druid_ingest)
# and the provider with its dev extras, the postgres extra (dev/airflow's deployment) and the OpenLineage extra
# (tests/airflow/test_openlineage.py) and the Celery extra (dev/airflow's AIRFLOW_DEV_EXECUTOR=celery). Idempotent: skips pip when no pyproject.toml has changed since the last
# successful install. Fails loudly when Python is missing or too old.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
PY="${PYTHON:-python3}"
command -v "$PY" >/dev/null || { echo "bootstrap: $PY not found; install Python >= 3.10" >&2; exit 1; }
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "bootstrap: Python >= 3.10 required" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.installed-$(cat pyproject.toml packages/*/pyproject.toml | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  echo "bootstrap: installing druid-ingest, dagster-druid-ingest and airflow-provider-druid-ingest[dev,postgres,openlineage,celery] into .venv (first run: minutes)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e packages/druid-ingest -e packages/dagster-druid-ingest \
    -e ".[dev,postgres,openlineage,celery]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
