#!/usr/bin/env bash
# CI step (scripts/test.sh): the dev harnesses from a clone of this repository in a folder only its owner can
# traverse (a `mktemp -d`, 0700), where servers that drop privileges (PostgreSQL as `postgres`, nginx's workers as
# `nobody`) cannot reach into the checkout. As root this is the case that broke; as another user it proves the
# plain path. What it does:
#   start DIR DRUID_URL   clone HEAD into DIR/checkout (sharing this checkout's .venv: its python imports the
#                         clone's package first through PYTHONPATH); nginx from there on spare ports, an
#                         authenticated TLS request through it (a worker that cannot read htpasswd answers 500),
#                         nginx stopped; then the Airflow deployment started exactly as scripts/demo.sh starts it
#                         (default settings and ports) and LEFT RUNNING, so the deployment suite runs beside a
#                         demo deployment and must not use it. When a demo deployment already runs (demo.sh
#                         before test.sh), the clone's starts on spare ports, shows its status and stops
#   stop DIR              stop that deployment, check nothing of it is left, remove DIR and its outside state
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cmd="${1:?start|stop}"
dir="${2:?a directory made by mktemp -d}"
clone="$dir/checkout"
# the outside state (dev/lib.sh) of this clone goes to a root of its own, removed with it
export DRUID_INGEST_DEV_STATE_ROOT="$dir.outside"
# the three distributions of the clone (the shared .venv has this checkout's as editables, after these)
export PYTHONPATH="$clone:$clone/packages/druid-ingest:$clone/packages/dagster-druid-ingest${PYTHONPATH:+:$PYTHONPATH}"
# the demo's deployment: default state dir and ports, whatever the caller exported for its own
unset AIRFLOW_DEV_VAR_DIR AIRFLOW_DEV_PG_PORT AIRFLOW_DEV_API_PORT AIRFLOW_DEV_LOG_PORT AIRFLOW_DEV_EXTRA_DAGS
fail() { echo "outside checkout: FAILED: $*" >&2; exit 1; }

case "$cmd" in
  start)
    druid_url="${3:?DRUID_URL}"
    [ "$(stat -c %a "$dir")" = 700 ] || fail "$dir is not mode 0700"
    git clone -q "$root" "$clone"
    ln -s "$root/.venv" "$clone/.venv"
    mkdir -p "$DRUID_INGEST_DEV_STATE_ROOT"
    echo "outside checkout: $clone (mode of $dir: $(stat -c %a "$dir"), user $(id -un))"
    cd "$clone"
    # every port of the harness moves (the suite's own nginx and squid may be running on the defaults)
    export NGINX_DEV_PORT=28445 NGINX_DEV_REDIRECT_PORT=28446 NGINX_DEV_TOKEN_PORT=28451 NGINX_DEV_MTLS_PORT=28452 \
      NGINX_DEV_PROXY_PORT=28453 NGINX_DEV_SQUID_PORT=28454
    DRUID_URL="$druid_url" bash dev/nginx/nginx.sh start
    eval "$(bash dev/nginx/nginx.sh env)"
    code="$(curl -s -o /dev/null -w '%{http_code}' --cacert "$NGINX_CA_BUNDLE" -u "$NGINX_ADMIN_USER:$NGINX_ADMIN_PASSWORD" \
      "$NGINX_TLS_URL/druid/indexer/v1/tasks?max=1")" || true
    bash dev/nginx/nginx.sh clean
    [ "$code" = 200 ] || fail "an authenticated GET through the clone's nginx answered $code, not 200 (see its error.log)"
    echo "outside checkout: nginx from the clone: authenticated GET through TLS answered 200"
    if (exec 3<>/dev/tcp/127.0.0.1/28080) 2>/dev/null; then
      # a demo deployment already runs (e.g. `bash scripts/demo.sh` before `bash scripts/test.sh`): that one is
      # left running; the clone's deployment proves the 0700 start on spare ports and stops again
      echo "outside checkout: a deployment already answers on 127.0.0.1:28080 (the demo's): the clone's runs on spare ports and stops"
      export AIRFLOW_DEV_PG_PORT=25434 AIRFLOW_DEV_API_PORT=28082 AIRFLOW_DEV_LOG_PORT=28795
      DRUID_URL="$druid_url" bash dev/airflow/airflow.sh start
      bash dev/airflow/airflow.sh status
      bash dev/airflow/airflow.sh clean
      rm -rf "$clone"
    else
      DRUID_URL="$druid_url" bash dev/airflow/airflow.sh start
      bash dev/airflow/airflow.sh status
    fi
    ;;
  stop)
    if [ -d "$clone" ]; then
      (cd "$clone" && bash dev/airflow/airflow.sh clean)
    fi
    # `clean` took the clone's state outside the checkout and the emptied root: anything left is a leak
    if [ -d "$DRUID_INGEST_DEV_STATE_ROOT" ]; then
      fail "state left outside the checkout after clean: $(ls -A "$DRUID_INGEST_DEV_STATE_ROOT" | tr '\n' ' ')"
    fi
    rm -rf "$dir"
    ;;
  *) fail "usage: $0 start DIR DRUID_URL | stop DIR" ;;
esac
