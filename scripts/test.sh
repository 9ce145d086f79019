#!/usr/bin/env bash
# The README's test command: sets itself up, starts a real Druid (dev/druid) for the e2e suite, runs the whole
# suite, and stops Druid whatever happens. Nothing is skipped silently: missing Java or Maven fails the run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/mypy  # strict on core/ and the client type checks (pyproject [tool.mypy])
for tool in java mvn; do
  command -v "$tool" >/dev/null || { echo "test: '$tool' is required for the real-Druid e2e suite but is missing" >&2; exit 1; }
done
started=0
cleanup() { if [ "$started" = 1 ]; then bash dev/druid/druid.sh stop || true; fi; }
trap cleanup EXIT
if [ "${DRUID_E2E:-1}" = 1 ]; then
  bash dev/druid/druid.sh start
  started=1
  bash dev/druid/druid.sh wait 600
  export DRUID_E2E_URL="$(bash dev/druid/druid.sh url)"
fi
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
