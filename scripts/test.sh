#!/usr/bin/env bash
# The README's test command: sets itself up, starts a real Druid (dev/druid) for the e2e suite, runs the existing
# suites, then starts the Airflow deployment (dev/airflow: Postgres, scheduler, triggerer, ...) and runs the
# deployment suite (tests/deploy) against both; stops what it started whatever happens. Nothing is skipped
# silently: missing Java or Maven fails the run, and so does a deployment that does not come up.
#
#   bash scripts/test.sh                 everything (what CI runs)
#   bash scripts/test.sh ARGS...         one pytest run with ARGS (Druid and, for tests/deploy, the deployment
#                                        are started as for the full run)
#   DRUID_E2E=0 / DEPLOY_E2E=0           do not start Druid / the deployment (deselect their tests yourself)
#   PACKAGE_SMOKE=0                      skip scripts/ci/package_smoke.sh (build + fresh-venv wheel smoke tests)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/mypy  # strict on core/ and the client type checks (pyproject [tool.mypy])
for tool in java mvn; do
  command -v "$tool" >/dev/null || { echo "test: '$tool' is required for the real-Druid e2e suite but is missing" >&2; exit 1; }
done
druid_started=0
airflow_started=0
nginx_started=0
cleanup() {
  if [ "$airflow_started" = 1 ]; then bash dev/airflow/airflow.sh stop || true; fi
  if [ "$nginx_started" = 1 ]; then bash dev/nginx/nginx.sh stop || true; fi
  if [ "$druid_started" = 1 ]; then bash dev/druid/druid.sh stop || true; fi
}
trap cleanup EXIT
druid_url="$(bash dev/druid/druid.sh url)"
if [ "${DRUID_E2E:-1}" = 1 ]; then
  if .venv/bin/python -c 'import sys, urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1] + "/status/health", timeout=5).read().strip() != b"true")' "$druid_url" 2>/dev/null; then
    echo "test: a Druid already answers at $druid_url: using it (not stopped afterwards)"
  else
    druid_started=1
    bash dev/druid/druid.sh start
  fi
  bash dev/druid/druid.sh wait 600
  export DRUID_E2E_URL="$druid_url"
  # nginx (TLS, basic auth, read-only user, cross-host 307) in front of it for tests/e2e/test_tls_*.py
  if bash dev/nginx/nginx.sh status >/dev/null 2>&1; then
    echo "test: the dev nginx already runs: using it (not stopped afterwards)"
  else
    nginx_started=1
  fi
  t_nginx=$SECONDS
  DRUID_URL="$druid_url" bash dev/nginx/nginx.sh start
  echo "test: nginx harness ready in $((SECONDS - t_nginx))s"
fi
start_deployment() {
  [ "${DEPLOY_E2E:-1}" = 1 ] || return 0
  bash scripts/ci/browser.sh  # chromium + chromium-driver + selenium for tests/deploy/test_ui_browser.py
  if bash dev/airflow/airflow.sh status >/dev/null 2>&1; then
    echo "test: the Airflow deployment is already up: using it (not stopped afterwards)"
  else
    airflow_started=1
  fi
  # tests/deploy/dags (the crash points' test-only DAGs) is parsed as a second bundle beside dags/
  AIRFLOW_DEV_EXTRA_DAGS="$root/tests/deploy/dags" DRUID_URL="$druid_url" bash dev/airflow/airflow.sh start
}
pytest=(.venv/bin/python -m pytest -q -p no:cacheprovider)
if [ $# -gt 0 ]; then
  case " $* " in *tests/deploy*|*" deploy"*) start_deployment ;; esac
  exec_rc=0
  "${pytest[@]}" "$@" || exec_rc=$?
  exit $exec_rc
fi
"${pytest[@]}" --ignore=tests/deploy
if [ "${PACKAGE_SMOKE:-1}" = 1 ]; then  # the built wheel in fresh venvs, lowest and highest claimed Airflow
  t0=$SECONDS
  bash scripts/ci/package_smoke.sh
  echo "test: package smoke took $((SECONDS - t0))s"
fi
start_deployment
t0=$SECONDS
"${pytest[@]}" -s tests/deploy
echo "test: deployment suite took $((SECONDS - t0))s"
