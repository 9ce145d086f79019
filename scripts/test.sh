#!/usr/bin/env bash
# The README's test command: sets itself up, starts a real Druid (dev/druid) for the e2e suite, runs the existing
# suites, then starts the Airflow deployment (dev/airflow: Postgres, scheduler, triggerer, ...) and runs the
# deployment suite (tests/deploy) against both; stops what it started whatever happens, and prints how long each
# stage took. Nothing is skipped silently: missing Java or Maven fails the run, and so does a deployment that does
# not come up.
#
#   bash scripts/test.sh                 everything (what CI runs)
#   bash scripts/test.sh ARGS...         one pytest run with ARGS (Druid and, for tests/deploy, the deployment
#                                        are started as for the full run)
#   DRUID_E2E=0 / DEPLOY_E2E=0           do not start Druid / the deployment (deselect their tests yourself)
#   PACKAGE_SMOKE=0                      skip scripts/ci/package_smoke.sh (build + fresh-venv wheel smoke tests)
#   OUTSIDE_CHECK=0                      skip the harness check from a clone under a 0700 folder (below)
#   DEPLOY_CELERY_E2E=0                  skip the Celery suite (tests/deploy_celery, marker celery; default: run it
#                                        after tests/deploy, once the LocalExecutor deployment is stopped)
#   DRUID_HA_E2E=0                       skip the failover suite (tests/druid_ha, marker druid_ha; default: run it last, on its own cluster)
#                                        cluster (DRUID_CLUSTER=ha dev/druid/druid.sh, Router :18888, ~2.5 GB RSS)
#
# The suite's Airflow deployment is its own: state in var/airflow-test, Postgres 25433, api-server 28081, log
# servers 28793/28794 (AIRFLOW_DEV_* override). The deployment `scripts/demo.sh` leaves running (var/airflow,
# 25432/28080/8793) is never used, stopped or changed; it is started with other settings (no test-only DAGs).
# The Celery suite starts its own CeleryExecutor deployment (tests/deploy_celery/conftest.py): var/airflow-celery,
# Postgres 25440, api-server 28090, log servers 28891..28894, Redis 26390 (DEPLOY_CELERY_* override).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export AIRFLOW_DEV_VAR_DIR="${AIRFLOW_DEV_VAR_DIR:-$root/var/airflow-test}"
export AIRFLOW_DEV_PG_PORT="${AIRFLOW_DEV_PG_PORT:-25433}"
export AIRFLOW_DEV_API_PORT="${AIRFLOW_DEV_API_PORT:-28081}"
export AIRFLOW_DEV_LOG_PORT="${AIRFLOW_DEV_LOG_PORT:-28793}"
export AIRFLOW_DEV_REPARSE_SEC="${AIRFLOW_DEV_REPARSE_SEC:-600}"  # the suite's DAG files never change mid-run
# shellcheck source=lib/stages.sh
source "$root/scripts/lib/stages.sh"

druid_started=0
druid_ha_started=0
celery_started=0
celery_env=(AIRFLOW_DEV_EXECUTOR=celery AIRFLOW_DEV_VAR_DIR="${DEPLOY_CELERY_VAR_DIR:-$root/var/airflow-celery}"
            AIRFLOW_DEV_PG_PORT="${DEPLOY_CELERY_PG_PORT:-25440}" AIRFLOW_DEV_REDIS_PORT="${DEPLOY_CELERY_REDIS_PORT:-26390}")
airflow_started=0
nginx_started=0
outside_dir=""
cleanup() {
  local rc=$?
  bg_wait_all  # the background steps end first (e.g. the ha cluster's start, before its stop below)
  if [ "$airflow_started" = 1 ]; then stage "Airflow deployment stop" bash dev/airflow/airflow.sh stop || true; fi
  if [ "$celery_started" = 1 ]; then stage "Celery deployment stop" env "${celery_env[@]}" bash dev/airflow/airflow.sh stop || true; fi
  if [ -n "$outside_dir" ]; then stage "0700 clone: stop, remove" bash scripts/ci/outside_checkout.sh stop "$outside_dir" || true; fi
  if [ "$nginx_started" = 1 ]; then stage "nginx stop" bash dev/nginx/nginx.sh stop || true; fi
  if [ "$druid_started" = 1 ]; then stage "Druid stop" bash dev/druid/druid.sh stop || true; fi
  if [ "$druid_ha_started" = 1 ]; then stage "Druid ha stop" env DRUID_CLUSTER=ha bash dev/druid/druid.sh stop || true; fi
  stages_report "$rc"
}
trap cleanup EXIT

stage "bootstrap (.venv)" bash scripts/bootstrap.sh
stage "ruff" .venv/bin/ruff check .
# mypy --strict: on the core, the Dagster face, the provider and the client type checks (pyproject [tool.mypy]).
# In the full run it runs niced beside the main suite (below) and is waited for after it: ~20 s of CPU taken from
# what the serial real-Druid chain leaves idle instead of added in front; a type error still fails the run.
if [ $# -gt 0 ]; then stage "mypy --strict" .venv/bin/mypy; else bg_start "mypy --strict" "$root/var/mypy.log" nice -n 10 .venv/bin/mypy; fi
for tool in java mvn; do
  command -v "$tool" >/dev/null || { echo "test: '$tool' is required for the real-Druid e2e suite but is missing" >&2; exit 1; }
done
druid_url="$(bash dev/druid/druid.sh url)"
start_druid() {
  if .venv/bin/python -c 'import sys, urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1] + "/status/health", timeout=5).read().strip() != b"true")' "$druid_url" 2>/dev/null; then
    echo "test: a Druid already answers at $druid_url: using it (not stopped afterwards)"
  else
    druid_started=1
    bash dev/druid/druid.sh start
  fi
  bash dev/druid/druid.sh wait 600
}
start_nginx() {
  # nginx (TLS, basic auth, read-only user, cross-host 307, bearer token, client certificates, http:// proxy)
  # in front of it, and squid (the HTTPS proxy), for tests/e2e/test_tls_*.py and test_auth_networks.py; `start`
  # installs both when missing (or fails) and rewrites + reloads a running one, so its servers are current
  if bash dev/nginx/nginx.sh status >/dev/null 2>&1; then
    echo "test: the dev nginx already runs: using it (not stopped afterwards)"
  else
    nginx_started=1
  fi
  DRUID_URL="$druid_url" bash dev/nginx/nginx.sh start
}
if [ "${DRUID_E2E:-1}" = 1 ]; then
  stage "Druid start" start_druid
  export DRUID_E2E_URL="$druid_url"
  stage "nginx start" start_nginx
fi
# What the deployment stages install from the system (PostgreSQL, Redis; chromium + selenium for
# tests/deploy/test_ui_browser.py), fetched while the main suite runs: apt and pip wait on the network, not the CPU
prep_log="$root/var/test-prep.log"
prep_pid=""
start_prep() {
  [ "${DEPLOY_E2E:-1}" = 1 ] || return 0
  mkdir -p "$root/var"
  # celery mode's prepare also installs Debian's redis-server (tests/deploy_celery)
  (bash dev/airflow/airflow.sh prepare \
    && { [ "${DEPLOY_CELERY_E2E:-1}" = 0 ] || AIRFLOW_DEV_EXECUTOR=celery bash dev/airflow/airflow.sh prepare; } \
    && bash scripts/ci/browser.sh) >"$prep_log" 2>&1 &
  prep_pid=$!
}
wait_prep() {
  [ -n "$prep_pid" ] || return 0
  local rc=0
  wait "$prep_pid" || rc=$?
  prep_pid=""
  cat "$prep_log"
  [ "$rc" = 0 ] || { echo "test: installing PostgreSQL / Redis / chromium failed (above; log $prep_log)" >&2; return "$rc"; }
}
start_deployment() {
  [ "${DEPLOY_E2E:-1}" = 1 ] || return 0
  stage "browser (chromium, selenium)" bash scripts/ci/browser.sh  # for tests/deploy/test_ui_browser.py
  if bash dev/airflow/airflow.sh status >/dev/null 2>&1; then
    echo "test: the suite's Airflow deployment ($AIRFLOW_DEV_VAR_DIR) is already up: using it (not stopped afterwards)"
  else
    airflow_started=1
  fi
  # tests/deploy/dags (the crash points' test-only DAGs) is parsed as a second bundle beside dags/
  stage "Airflow deployment start" env AIRFLOW_DEV_EXTRA_DAGS="$root/tests/deploy/dags" DRUID_URL="$druid_url" \
    bash dev/airflow/airflow.sh start
}
pytest=(.venv/bin/python -m pytest -q -p no:cacheprovider)
if [ $# -gt 0 ]; then
  wants_deploy=0
  for arg in "$@"; do
    case "$arg" in --ignore*|--deselect*|*"not deploy"*|*tests/deploy_celery*) ;; *tests/deploy*|deploy) wants_deploy=1 ;; esac
  done
  [ "$wants_deploy" = 0 ] || start_deployment
  stage "pytest $*" "${pytest[@]}" "$@"
  exit 0
fi
start_prep
# The package smoke (the built wheels in fresh venvs, lowest and highest claimed Airflow; ~70 s on 2 cores) runs
# niced beside the main suite: while the fake-Druid tests keep both cores busy it gets little CPU, then it runs in
# what the serial real-Druid chain leaves idle once they are done (the chain ends the stage minutes after them).
if [ "${PACKAGE_SMOKE:-1}" = 1 ]; then
  bg_start "package smoke" "$root/var/package-smoke.log" nice -n 10 bash scripts/ci/package_smoke.sh
fi
# fake-Druid tests spread over 4 workers (they wait on sockets more than on the CPU); the real-Druid suite stays
# serial, in file order, on one worker (tests/xdist_order.py)
stage "pytest: all but tests/deploy (-n 4)" "${pytest[@]}" -n 4 --dist loadgroup --durations=25 --ignore=tests/deploy --ignore=tests/deploy_celery --ignore=tests/druid_ha
stage "mypy --strict (the rest of its run)" bg_wait "mypy --strict"
! bg_running "package smoke" || stage "package smoke (the rest of its run)" bg_wait "package smoke"
[ -z "$prep_pid" ] || stage "wait for the PostgreSQL, Redis, chromium installs" wait_prep
if [ "${OUTSIDE_CHECK:-1}" = 1 ] && [ "${DEPLOY_E2E:-1}" = 1 ]; then
  # the harness from a clone under a 0700 folder (nginx's workers and Postgres drop privileges), whose
  # deployment, started as scripts/demo.sh starts it, stays up during the deployment suite: the suite must not
  # use it (issue: test.sh after demo.sh). Started beside the suite's own deployment (state dirs, Postgres and
  # ports of their own): both are up before tests/deploy
  outside_dir="$(mktemp -d)"
  bg_start "harness from a 0700 clone + demo deployment" "$root/var/outside-checkout.log" \
    bash scripts/ci/outside_checkout.sh start "$outside_dir" "$druid_url"
fi
start_deployment
! bg_running "harness from a 0700 clone + demo deployment" \
  || stage "harness from a 0700 clone (the rest of it)" bg_wait "harness from a 0700 clone + demo deployment"
stage "pytest: tests/deploy" "${pytest[@]}" -s --durations=10 tests/deploy
if [ "${DRUID_HA_E2E:-1}" = 1 ]; then
  # the failover suite's cluster (tests/druid_ha, last) starts now, in the background: its JVM starts overlap the
  # deployment stops and the Celery suite (ports, var dir and ZooKeeper of its own) instead of adding ~60 s
  druid_ha_started=1
  bg_start "Druid ha start" "$root/var/druid-ha-start.log" env DRUID_CLUSTER=ha bash dev/druid/druid.sh start
fi
if [ "${DEPLOY_CELERY_E2E:-1}" = 1 ]; then
  # the 2 cores go to the Celery deployment (7 Airflow services + Redis) and the ha cluster's start: the
  # LocalExecutor deployment and the 0700 clone's demo deployment are done
  if [ "$airflow_started" = 1 ]; then stage "Airflow deployment stop" bash dev/airflow/airflow.sh stop; airflow_started=0; fi
  if [ -n "$outside_dir" ]; then stage "0700 clone: stop, remove" bash scripts/ci/outside_checkout.sh stop "$outside_dir"; outside_dir=""; fi
  # the suite starts the deployment (its start time is printed) and stops it; the trap stops it whatever happens
  celery_started=1
  stage "pytest: tests/deploy_celery (Celery deployment)" "${pytest[@]}" -s tests/deploy_celery
else
  echo "test: ################################################################################" >&2
  echo "test: DEPLOY_CELERY_E2E=0: SKIPPING tests/deploy_celery (Celery backfill, triggerer failover)" >&2
  echo "test: ################################################################################" >&2
fi
if [ "${DRUID_HA_E2E:-1}" = 1 ]; then  # Overlord failover and the two-replica gate, on the ha cluster, last
  stage "Druid ha start (the rest of its wait)" bg_wait "Druid ha start"
  stage "pytest: tests/druid_ha" env DRUID_HA_URL=http://127.0.0.1:18888 "${pytest[@]}" -s tests/druid_ha
fi
