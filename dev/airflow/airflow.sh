#!/usr/bin/env bash
# A real single-machine Airflow 3 deployment for this repo: PostgreSQL + LocalExecutor, with the four
# long-running services a user runs (api-server, scheduler, dag-processor, triggerer), all on 127.0.0.1.
# AIRFLOW_DEV_EXECUTOR=celery runs the CeleryExecutor instead: Redis as the broker, the Postgres result backend,
# two Celery workers (worker-1, worker-2) and two triggerers (triggerer-1, triggerer-2) beside the others.
#
#   bash dev/airflow/airflow.sh start            Postgres (initdb once), db migrate, connection/variable/pool,
#                                                sample events, the four services; waits until all are healthy
#                                                and the example DAGs are parsed. Idempotent: starts only what
#                                                is not running (so it also restarts a killed service)
#   bash dev/airflow/airflow.sh prepare          install what start needs from the system (PostgreSQL) and nothing else
#   bash dev/airflow/airflow.sh stop             stop everything (TERM to each process group, KILL after 30 s),
#                                                then check that no process of this deployment is left; idempotent
#   bash dev/airflow/airflow.sh status           one line per service: pid, port, state, RSS (whole group)
#   bash dev/airflow/airflow.sh logs [service]   tail -F a service log (postgres|api-server|scheduler|
#                                                dag-processor|triggerer; celery: redis|worker-N|triggerer-N);
#                                                no argument: all
#   bash dev/airflow/airflow.sh url              UI address and login
#   bash dev/airflow/airflow.sh clean            stop, then remove the var dir and the Postgres data wherever it lives
#                                                (also outside the checkout): the next start begins from nothing
#   bash dev/airflow/airflow.sh env              export lines for this deployment (eval "$(... env)"; then the
#                                                plain `airflow` CLI of .venv talks to it)
#   bash dev/airflow/airflow.sh airflow ARGS...  run `.venv/bin/airflow ARGS` against this deployment
#
# Environment:
#   AIRFLOW_DEV_VAR_DIR   state: Postgres data, AIRFLOW_HOME, logs, pids, events (default <repo>/var/airflow). As
#                         root, when user postgres cannot traverse it (a checkout under /root or a mktemp -d), the
#                         Postgres data goes to /var/lib/druid-ingest-dev/airflow-pg-<hash> instead (start says so)
#   AIRFLOW_DEV_PG_PORT   PostgreSQL port (default 25432)     AIRFLOW_DEV_API_PORT  api-server port (default 28080)
#   AIRFLOW_DEV_LOG_PORT  the scheduler's log server (default 8793; the triggerer's is one above). scripts/test.sh
#                         runs its own deployment on var/airflow-test, 25433, 28081 and 28793
#   AIRFLOW_DEV_PASSWORD  UI password of user "admin" (default: generated once, kept in the var dir)
#   DRUID_URL             Druid Router for druid_cluster_default (default: `dev/druid/druid.sh url`)
#   AIRFLOW_DEV_POOL_INGESTIONS  concurrent ingestions the druid_ingest pool admits (default 2)
#   AIRFLOW_DEV_START_TIMEOUT    seconds `start` waits for health (default 240)
#   AIRFLOW_DEV_EXECUTOR  local (default: LocalExecutor, as always) or celery (CeleryExecutor, needs
#                         apache-airflow-providers-celery in .venv: scripts/bootstrap.sh installs it; start installs
#                         Debian's redis-server by apt-get when missing, and runs it as a plain process, no service)
#   AIRFLOW_DEV_REDIS_PORT       celery: the broker's port on 127.0.0.1 (default 26379; data under the var dir)
#   AIRFLOW_DEV_WORKER_CONCURRENCY  celery: task slots of each of the two workers (default 2)
#                         celery log servers: triggerer-N on LOG_PORT + N, worker-N on LOG_PORT + 2 + N (the
#                         scheduler serves none). Each triggerer/worker runs under its own hostname (= its name)
#   AIRFLOW_DEV_EXTRA_DAGS       a second DAG folder, parsed as its own bundle "extra-dags" beside dags/ (the
#                                deployment suite passes tests/deploy/dags: test-only DAGs stay out of dags/).
#                                Read on a fresh start and kept until `stop` (a service restart keeps it)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VAR_DIR="${AIRFLOW_DEV_VAR_DIR:-$ROOT/var/airflow}"
[[ "$VAR_DIR" == /* ]] || VAR_DIR="$PWD/$VAR_DIR"
PG_PORT="${AIRFLOW_DEV_PG_PORT:-25432}"
API_PORT="${AIRFLOW_DEV_API_PORT:-28080}"
API_URL="http://127.0.0.1:$API_PORT"
LOG_PORT="${AIRFLOW_DEV_LOG_PORT:-8793}"   # the scheduler's log server; the triggerer's is LOG_PORT + 1
VENV="$ROOT/.venv"
AIRFLOW_BIN="$VENV/bin/airflow"
PY="$VENV/bin/python"
PG_DIR="$VAR_DIR/pg"     # resolve_pg_dir may move it out of the checkout (dev/lib.sh)
SECRETS="$VAR_DIR/secrets.env"
EVENTS_DIR="$VAR_DIR/events"
FIRST_DAY="2026-11-01"   # start_date of the example DAGs
# stop order: nothing new is scheduled or parsed first, the API (tasks talk to it) last
EXECUTOR="${AIRFLOW_DEV_EXECUTOR:-local}"
REDIS_PORT="${AIRFLOW_DEV_REDIS_PORT:-26379}"
case "$EXECUTOR" in
  local) SERVICES=(scheduler triggerer dag-processor api-server) ;;
  celery) SERVICES=(scheduler triggerer-1 triggerer-2 worker-1 worker-2 dag-processor api-server) ;;
  *) printf '[airflow.sh] ERROR: AIRFLOW_DEV_EXECUTOR=%s: valid are local (LocalExecutor, the default) and celery\n' "$EXECUTOR" >&2; exit 2 ;;
esac

DEV_NAME=airflow.sh
# shellcheck source=../lib.sh
source "$HERE/../lib.sh"

# the shared log_file, but the Postgres log lives beside its data (which may be outside the checkout)
log_file() { if [[ "$1" == postgres ]]; then echo "$PG_DIR/postgres.log"; else echo "$VAR_DIR/log/$1.log"; fi; }

# ---------------------------------------------------------------------------------------------------------
# environment of every Airflow process
# ---------------------------------------------------------------------------------------------------------
load_secrets() {
  mkdir -p "$VAR_DIR"
  if [[ ! -f "$SECRETS" ]]; then
    [[ -x "$PY" ]] || die "$PY missing: run 'bash scripts/bootstrap.sh' first"
    (umask 077 && "$PY" - >"$SECRETS.tmp" <<'EOF'
import secrets
from cryptography.fernet import Fernet
print(f"PG_PASSWORD={secrets.token_hex(16)}")
print(f"FERNET_KEY={Fernet.generate_key().decode()}")
print(f"JWT_SECRET={secrets.token_urlsafe(32)}")
print(f"API_SECRET_KEY={secrets.token_urlsafe(32)}")
print(f"ADMIN_PASSWORD={secrets.token_urlsafe(9)}")
EOF
    ) && mv "$SECRETS.tmp" "$SECRETS"
  fi
  # shellcheck disable=SC1090
  source "$SECRETS"
  ADMIN_PASSWORD="${AIRFLOW_DEV_PASSWORD:-$ADMIN_PASSWORD}"
}

# the extra DAG folder of this start/stop cycle (recorded by cmd_start), else the environment's
extra_dags() {
  if [[ -f "$VAR_DIR/run/extra_dags" ]]; then cat "$VAR_DIR/run/extra_dags"; else echo "${AIRFLOW_DEV_EXTRA_DAGS:-}"; fi
}

airflow_env() {
  load_secrets
  local db="airflow:$PG_PASSWORD@127.0.0.1:$PG_PORT/airflow" extra
  extra="$(extra_dags)"
  if [[ -n "$extra" ]]; then
    # both bundles explicitly: setting the list replaces the default "dags-folder" bundle
    printf "export AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST='%s'\n" \
      "[{\"name\": \"dags-folder\", \"classpath\": \"airflow.dag_processing.bundles.local.LocalDagBundle\", \"kwargs\": {}}, {\"name\": \"extra-dags\", \"classpath\": \"airflow.dag_processing.bundles.local.LocalDagBundle\", \"kwargs\": {\"path\": \"$extra\"}}]"
  fi
  cat <<EOF
export AIRFLOW_HOME='$VAR_DIR/home'
export AIRFLOW__CORE__DAGS_FOLDER='$ROOT/dags'
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__CORE__EXECUTOR=$([[ "$EXECUTOR" == celery ]] && echo CeleryExecutor || echo LocalExecutor)
export AIRFLOW__CORE__PARALLELISM=$([[ "$EXECUTOR" == celery ]] && echo $((2 * ${AIRFLOW_DEV_WORKER_CONCURRENCY:-2})) || echo 4)
export AIRFLOW__CORE__FERNET_KEY='$FERNET_KEY'
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL='$API_URL/execution/'
export AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS='admin:admin'
export AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE='$VAR_DIR/home/simple_auth_manager_passwords.json'
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN='postgresql+psycopg2://$db'
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC='postgresql+asyncpg://$db'
export AIRFLOW__API__HOST=127.0.0.1
export AIRFLOW__API__PORT=$API_PORT
export AIRFLOW__API__BASE_URL='$API_URL/'
export AIRFLOW__API__SECRET_KEY='$API_SECRET_KEY'
export AIRFLOW__API_AUTH__JWT_SECRET='$JWT_SECRET'
export AIRFLOW__LOGGING__LOGGING_LEVEL=INFO
# a killed triggerer's triggers move to a live one once its heartbeat is older than the threshold (default 30 s);
# AIRFLOW_DEV_REPARSE_SEC: how often DAG files are re-parsed (Airflow's 30 s; the test suite's never change: 600)
export AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC=2
export AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_THRESHOLD=10
export AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL=${AIRFLOW_DEV_REPARSE_SEC:-30}
export AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT=$LOG_PORT
export AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT=$((LOG_PORT + 1))
export AIRFLOW__CORE__TEST_CONNECTION=Enabled
export AIRFLOW_DEV_API_URL='$API_URL'
export AIRFLOW_DEV_EVENTS_DIR='$EVENTS_DIR'
export AIRFLOW_DEV_ADMIN_USER=admin
export AIRFLOW_DEV_ADMIN_PASSWORD='$ADMIN_PASSWORD'
export AIRFLOW_DEV_EXECUTOR=$EXECUTOR
EOF
  if [[ "$EXECUTOR" == celery ]]; then
    cat <<EOF
export AIRFLOW__CELERY__BROKER_URL='redis://127.0.0.1:$REDIS_PORT/0'
export AIRFLOW__CELERY__RESULT_BACKEND='db+postgresql+psycopg2://$db'
export AIRFLOW__CELERY__WORKER_CONCURRENCY=${AIRFLOW_DEV_WORKER_CONCURRENCY:-2}
export AIRFLOW_DEV_REDIS_PORT=$REDIS_PORT
EOF
  fi
}

use_airflow_env() { eval "$(airflow_env)"; }

require_venv() {
  [[ -x "$AIRFLOW_BIN" ]] || die "$AIRFLOW_BIN missing: run 'bash scripts/bootstrap.sh' (creates .venv with the package)"
  "$PY" -c 'import psycopg2, asyncpg' 2>/dev/null \
    || die "psycopg2/asyncpg missing in .venv (Airflow 3 on Postgres needs both): run 'bash scripts/bootstrap.sh'"
  "$PY" -c 'import airflow_provider_druid_ingest as a, druid_ingest as d, pathlib, sys; sys.exit(0 if all(str(pathlib.Path(m.__file__).resolve()).startswith(sys.argv[1]) for m in (a, d)) else 1)' "$ROOT/" \
    || die ".venv imports airflow_provider_druid_ingest or druid_ingest from outside $ROOT: run 'bash scripts/bootstrap.sh' in this checkout"
  if [[ "$EXECUTOR" == celery ]]; then
    "$PY" -c 'import airflow.providers.celery, redis' 2>/dev/null \
      || die "AIRFLOW_DEV_EXECUTOR=celery needs apache-airflow-providers-celery and redis in .venv: run 'bash scripts/bootstrap.sh'"
  fi
}

# ---------------------------------------------------------------------------------------------------------
# Redis, the Celery broker (celery mode): Debian's redis-server as a plain process of this deployment, on its
# own port, its data under the var dir, no persistence (a lost queue is re-sent by the scheduler's adoption)
# ---------------------------------------------------------------------------------------------------------
redis_bin() { command -v redis-server 2>/dev/null || { [[ -x /usr/bin/redis-server ]] && echo /usr/bin/redis-server; }; }

install_redis() {
  [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null \
    || die "redis-server not found. Install it (Debian: apt-get install redis-server) or put it on PATH"
  log "redis-server not found: installing Debian's redis-server (apt-get; its system service is not used)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || die "apt-get update failed (see above); install redis-server by hand"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
    || die "apt-get install redis-server failed (see above)"
}

# the redis-server command (start_service's prepare_service), after its checks
prepare_redis() {
  local bin
  bin="$(redis_bin)" || { install_redis; bin="$(redis_bin)" || die "redis-server installed but not found"; }
  port_open "$REDIS_PORT" && die "port $REDIS_PORT is in use by another process (set AIRFLOW_DEV_REDIS_PORT)"
  mkdir -p "$VAR_DIR/redis"
  SERVICE_CMD=(env AIRFLOW_DEV_DEPLOYMENT="$VAR_DIR" "$bin" --bind 127.0.0.1 --port "$REDIS_PORT"
    --dir "$VAR_DIR/redis" --save '' --appendonly no --daemonize no --protected-mode yes)
  SERVICE_NOTE="127.0.0.1:$REDIS_PORT, $("$bin" --version | cut -d' ' -f3)"
}

redis_start() {
  start_service redis
  wait_healthy redis $((SECONDS + 10))
}

redis_stop() {
  local pid
  pid="$(service_pid redis)" || { rm -f "$(pid_file redis)"; return 0; }
  stop_pid "$pid" redis TERM 10
  rm -f "$(pid_file redis)"
}

# a Celery worker has connected to the broker: celery logs "<name>@<host> ready." once per start
worker_ready() {
  awk '/^=== .* starting /{ok=0} /@[^ ]* ready\./{ok=1} END{exit !ok}' "$(log_file "$1")" 2>/dev/null
}

# "beat Ns ago" of a triggerer's newest running TriggererJob (its hostname is its name), from the metadata DB
triggerer_beat() {
  local age
  age="$(PGPASSWORD="$PG_PASSWORD" "${PG_BIN:-/usr/bin}/psql" -h 127.0.0.1 -p "$PG_PORT" -U airflow -d airflow -qtAX -c \
    "SELECT id || ' beat ' || round(extract(epoch FROM now() - latest_heartbeat)) || 's ago' FROM job WHERE job_type = 'TriggererJob' AND hostname = '$1' AND state = 'running' ORDER BY id DESC LIMIT 1" 2>/dev/null)"
  echo "${age:+job }${age:-no running TriggererJob}"
}

# ---------------------------------------------------------------------------------------------------------
# PostgreSQL (Debian's packages; the server runs as user postgres when we are root)
# ---------------------------------------------------------------------------------------------------------
pg_bin_dir() {
  local d
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"; return 0
  fi
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
  [[ -n "$d" && -x "$d/pg_ctl" ]] && { echo "$d"; return 0; }
  return 1
}

install_postgres() {
  [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null \
    || die "initdb/pg_ctl not found. Install PostgreSQL's server (Debian: apt-get install postgresql) or put its bin/ on PATH"
  log "initdb/pg_ctl not found: installing Debian's postgresql (apt-get; the packaged 'main' cluster is not created)"
  mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/airflow-dev.conf
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
    || die "apt-get update failed (see above); install postgresql by hand"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null \
    || die "apt-get install postgresql failed (see above)"
}

PG_USER=""
# from / : the server's tools fail in a working directory their user cannot enter (the checkout, see below)
as_pg() { if [[ -n "$PG_USER" ]]; then (cd / && runuser -u "$PG_USER" -- "$@"); else "$@"; fi; }

# As root the server runs as user postgres, which cannot reach a checkout in a folder only its owner can traverse:
# then the data lives outside the checkout (dev/lib.sh). Data already under the var dir stays where it is.
resolve_pg_dir() {
  [[ $EUID -eq 0 ]] || return 0
  id postgres >/dev/null 2>&1 || return 0
  PG_USER=postgres
  [[ -f "$VAR_DIR/pg/data/PG_VERSION" ]] && { PG_DIR="$VAR_DIR/pg"; return 0; }
  PG_DIR="$(dev_state_dir postgres "$VAR_DIR/pg" airflow-pg)"
}

pg_setup() {
  PG_BIN="$(pg_bin_dir)" || { install_postgres; PG_BIN="$(pg_bin_dir)" || die "postgresql installed but pg_ctl not found"; }
  if [[ $EUID -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user to run the server as (useradd -r postgres)"
  fi
  resolve_pg_dir
  local note
  note="$(dev_state_note PostgreSQL postgres "$VAR_DIR/pg" "$PG_DIR")"
  if [[ -n "$note" ]]; then
    log "$note"
    dev_make_outside "$PG_DIR" postgres
  fi
  mkdir -p "$PG_DIR/data" "$PG_DIR/run"
  [[ -n "$PG_USER" ]] && chown "$PG_USER" "$PG_DIR" "$PG_DIR/data" "$PG_DIR/run"
  chmod 700 "$PG_DIR/data" "$PG_DIR/run"
  as_pg test -w "$PG_DIR/data" \
    || die "user ${PG_USER:-$USER} cannot write $PG_DIR/data (not traversable: $(dev_blocked_for "${PG_USER:-$USER}" "$PG_DIR/data")); set AIRFLOW_DEV_VAR_DIR to a folder it can reach"
}

pg_running() { [[ -n "${PG_BIN:-}" ]] && as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; }

psql_admin() { "$PG_BIN/psql" -h "$PG_DIR/run" -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtAX "$@"; }

pg_start() {
  pg_setup
  if [[ ! -f "$PG_DIR/data/PG_VERSION" ]]; then
    log "initdb $PG_DIR/data ($("$PG_BIN/postgres" --version))"
    as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
      -E UTF8 --no-locale >"$VAR_DIR/log/initdb.log" 2>&1 || { tail -20 "$VAR_DIR/log/initdb.log" >&2; die "initdb failed"; }
    as_pg tee -a "$PG_DIR/data/postgresql.conf" >/dev/null <<EOF
# dev/airflow/airflow.sh
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_DIR/run'
max_connections = 150
shared_buffers = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  fi
  if pg_running; then
    log "postgres already running (port $PG_PORT)"
  else
    port_open "$PG_PORT" && die "port $PG_PORT is in use by another process (set AIRFLOW_DEV_PG_PORT)"
    touch "$(log_file postgres)"
    [[ -n "$PG_USER" ]] && chown "$PG_USER" "$(log_file postgres)"
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$(log_file postgres)" -w -t 60 start >/dev/null \
      || { tail -20 "$(log_file postgres)" >&2; die "postgres did not start (log: $(log_file postgres))"; }
    log "started postgres on 127.0.0.1:$PG_PORT (pid $(head -1 "$PG_DIR/data/postmaster.pid"), data $PG_DIR/data)"
  fi
  if [[ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = 'airflow'")" != 1 ]]; then
    psql_admin -c "CREATE ROLE airflow LOGIN PASSWORD '$PG_PASSWORD'"
    psql_admin -c "CREATE DATABASE airflow OWNER airflow"
    log "created role and database 'airflow'"
  fi
}

pg_stop() {
  PG_BIN="$(pg_bin_dir)" || return 0
  resolve_pg_dir
  [[ -f "$PG_DIR/data/PG_VERSION" ]] || return 0
  if pg_running; then
    local pid i
    pid="$(head -1 "$PG_DIR/data/postmaster.pid")"
    log "stopping postgres (pid $pid)"
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 30 stop >/dev/null || die "pg_ctl stop failed"
    # pg_ctl daemonizes the postmaster, so PID 1 reaps it: wait until even the zombie is gone
    for i in $(seq 20); do [[ -e "/proc/$pid" ]] || break; sleep 0.5; done
  fi
}

pg_pids() {
  local pid
  pid="$(head -1 "$PG_DIR/data/postmaster.pid" 2>/dev/null)" || return 0
  echo "$pid"; pgrep -P "$pid" || true
}

# ---------------------------------------------------------------------------------------------------------
# Airflow services: each in its own session (pid == process group id) so stop takes its children too
# ---------------------------------------------------------------------------------------------------------

# whether process $2 is service $1 (dev/lib.sh's service_pid ignores a recycled pid by it): redis retitles itself
# "redis-server 127.0.0.1:PORT"; an Airflow service runs in $VAR_DIR (start_service cds there) and names the
# service (the api-server retitles itself "airflow api_server", Celery its worker "[celeryd: worker-1@host:...")
service_is() {
  local cmd
  cmd="$(pid_cmdline "$2")"
  if [[ "$1" == redis ]]; then [[ "$cmd" == *redis-server*":$REDIS_PORT"* ]]; return; fi
  [[ "$(readlink "/proc/$2/cwd" 2>/dev/null)" == "$VAR_DIR" ]] || return 1
  [[ "$cmd" == *"$AIRFLOW_BIN $(service_argv "$1")"* || "$cmd" == "airflow ${1//-/_} "* \
    || "$cmd" == *"celeryd: $1@"* ]]
}

# the only service wait_healthy waits for one by one; the Airflow services answer together (wait_ready)
service_healthy() { [[ "$1" == redis ]] && port_open "$REDIS_PORT"; }

# The `airflow` arguments of a service: triggerer-N is `triggerer`, worker-N a Celery worker of its own name
service_argv() {
  case "$1" in
    triggerer-*) echo triggerer ;;
    worker-*) echo "celery worker --celery-hostname $1@127.0.0.1 --pid $VAR_DIR/run/$1.celery.pid" ;;
    *) echo "$1" ;;
  esac
}

# Environment of one service beyond airflow_env: in celery mode each triggerer/worker has its own hostname
# (dev/airflow/dev_hostname.py answers [core] hostname_callable from AIRFLOW_DEV_HOSTNAME) and log-server port
service_env() {
  local port
  case "$1" in triggerer-* | worker-*) ;; *) return 0 ;; esac
  port="$(log_server_port "$1")"
  echo "AIRFLOW_DEV_HOSTNAME=$1"
  echo "AIRFLOW__CORE__HOSTNAME_CALLABLE=dev_hostname.hostname"
  echo "PYTHONPATH=$HERE${PYTHONPATH:+:$PYTHONPATH}"
  case "$1" in
    triggerer-*) echo "AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT=$port" ;;
    worker-*) echo "AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT=$port" ;;
  esac
}

# "RSS PSS" in MB of some processes (PSS splits the pages forked workers share, so it adds up honestly)
mem_mb() {
  local p rss=0 pss=0 r s
  for p in "$@"; do
    r="$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null)"; s="$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null)"
    rss=$((rss + ${r:-0})); pss=$((pss + ${s:-0}))
  done
  echo "$((rss / 1024)) $((pss / 1024))"
}
group_mem_mb() { mem_mb $(pgrep -g "$1" || true); }

# The log server a service runs as its child (serve-logs): scheduler LOG_PORT, triggerer LOG_PORT + 1. In
# celery mode the scheduler serves none (CeleryExecutor.serve_logs is False): triggerer-N LOG_PORT + N,
# worker-N LOG_PORT + 2 + N.
log_server_port() {
  case "$EXECUTOR:$1" in
    local:scheduler) echo "$LOG_PORT" ;;
    local:triggerer) echo $((LOG_PORT + 1)) ;;
    celery:triggerer-[0-9]*) echo $((LOG_PORT + ${1#triggerer-})) ;;
    celery:worker-[0-9]*) echo $((LOG_PORT + 2 + ${1#worker-})) ;;
    *) return 1 ;;
  esac
}

# pid listening on 127.0.0.1/0.0.0.0 port $1 (psutil: Airflow depends on it), nothing when none
port_owner() {
  "$PY" -c '
import psutil, sys
port = int(sys.argv[1])
for c in psutil.net_connections(kind="tcp"):
    if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid:
        print(c.pid); break' "$1" 2>/dev/null || true
}

# A SIGKILLed service leaves its children behind (its serve-logs still holding the log port, idle executor
# workers): they keep the dead leader's process group. Stop them before the service starts again, or the new
# one runs without its log server.
reap_orphans() {
  local svc="$1" f old pids p
  f="$(pid_file "$svc")"
  [[ -f "$f" ]] || return 0
  old="$(cat "$f" 2>/dev/null || true)"
  [[ "$old" =~ ^[0-9]+$ ]] || return 0
  pids=""
  for p in $(pgrep -g "$old" 2>/dev/null || true); do marked_pid "$p" && pids="$pids $p"; done
  pids="${pids# }"
  [[ -n "$pids" ]] || return 0
  log "$svc (pid $old) is gone but left processes of its group running: $pids ($(ps -o args= -p "${pids// /,}" | cut -c1-40 | sort | uniq -c | awk '{c=$1; $1=""; printf "%s%s x%s", sep, substr($0, 2), c; sep=", "}')): stopping them before it starts again"
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  local i
  for i in $(seq 20); do pgrep -g "$old" >/dev/null || return 0; sleep 0.5; done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
}

# the command of a service (dev/lib.sh's start_service), after its checks
prepare_service() {
  local svc="$1" port owner
  [[ "$svc" == redis ]] && { prepare_redis; return; }
  reap_orphans "$svc"
  if port="$(log_server_port "$svc")" && port_open "$port"; then
    owner="$(port_owner "$port")"
    die "port $port ($svc's log server) is held by ${owner:+pid $owner: $(pid_cmdline "$owner" | cut -c1-80)}${owner:-another process}: stop it or set AIRFLOW_DEV_LOG_PORT"
  fi
  # the marker AIRFLOW_DEV_DEPLOYMENT is inherited by every child: stop finds stragglers by it
  local -a argv extra
  read -r -a argv <<<"$(service_argv "$svc")"
  mapfile -t extra < <(service_env "$svc")
  SERVICE_CMD=(env AIRFLOW_DEV_DEPLOYMENT="$VAR_DIR" "${extra[@]}" "$AIRFLOW_BIN" "${argv[@]}")
}

# GET $API_URL/api/v2/monitor/health (no auth): metadatabase, scheduler, triggerer, dag_processor
health_json() { curl -sS --max-time 5 "$API_URL/api/v2/monitor/health" 2>/dev/null || true; }

# components not healthy; with an epoch argument also those whose last heartbeat is older (a killed service's
# last heartbeat keeps it "healthy" for [triggerer|scheduler] *_health_check_threshold seconds)
unhealthy_components() {
  health_json | "$PY" -c '
import datetime, json, sys
since = float(sys.argv[1]) if len(sys.argv) > 1 else 0
try:
    h = json.load(sys.stdin)
except ValueError:
    print("api-server"); sys.exit()
def ok(k):
    c = h.get(k) or {}
    beat = c.get(f"latest_{k}_heartbeat")
    fresh = k == "metadatabase" or not since or (beat and datetime.datetime.fromisoformat(beat).timestamp() >= since)
    return c.get("status") == "healthy" and fresh
print(" ".join(k for k in ("metadatabase", "scheduler", "triggerer", "dag_processor") if not ok(k)))' "$@"
}

api_token() {
  curl -sS --max-time 10 -H 'Content-Type: application/json' \
    -d "{\"username\": \"admin\", \"password\": \"$ADMIN_PASSWORD\"}" "$API_URL/auth/token" \
    | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["access_token"])'
}

dags_parsed() {
  local token
  token="$(api_token 2>/dev/null)" || return 1
  local d
  for d in example_druid_daily example_druid_split; do
    [[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$API_URL/api/v2/dags/$d")" == 200 ]] || return 1
  done
}

wait_ready() {
  local since="${1:-0}" deadline=$((SECONDS + ${AIRFLOW_DEV_START_TIMEOUT:-240})) bad svc
  while true; do
    for svc in "${SERVICES[@]}"; do
      check_started "$svc"
    done
    bad="$(unhealthy_components "$since")"
    for svc in "${SERVICES[@]}"; do
      [[ "$svc" == worker-* ]] && ! worker_ready "$svc" && bad="$bad $svc"
    done
    bad="${bad# }"
    if [[ -z "$bad" ]]; then
      dags_parsed && return 0
      bad="example DAGs not parsed yet (GET /api/v2/dags/example_druid_daily; see $(log_file dag-processor))"
    fi
    ((SECONDS < deadline)) || die "not ready after ${AIRFLOW_DEV_START_TIMEOUT:-240}s: $bad (GET $API_URL/api/v2/monitor/health)"
    sleep 1
  done
}

# ---------------------------------------------------------------------------------------------------------
# configuration that lives in the metadata DB: connection, variable, pool (+ the sample events)
# ---------------------------------------------------------------------------------------------------------
pool_slots() {
  # one ingestion of the example spec takes maxNumConcurrentSubTasks + 1 slots (supervisor + workers)
  "$PY" -c 'import json, sys; t = json.load(open(sys.argv[1]))["spec"]["tuningConfig"]; print(int(sys.argv[2]) * (t.get("maxNumConcurrentSubTasks", 1) + 1))' \
    "$ROOT/dags/specs/events_web.json" "${AIRFLOW_DEV_POOL_INGESTIONS:-2}"
}

generate_events() {
  # every day the scheduler may pick: start_date .. yesterday (UTC). Unpausing the catchup=False example DAG
  # immediately runs the latest complete interval, so that day must have input too (docs/deployment.md)
  local days
  days="$("$PY" -c 'import datetime as d, sys; print(max(5, (d.datetime.now(d.timezone.utc).date() - d.date.fromisoformat(sys.argv[1])).days))' "$FIRST_DAY")"
  "$PY" "$ROOT/dags/data/generate_events.py" --out "$EVENTS_DIR" --start "$FIRST_DAY" --days "$days" 2>/dev/null
  log "sample events: $days days from $FIRST_DAY in $EVENTS_DIR"
}

druid_url() {
  if [[ -n "${DRUID_URL:-}" ]]; then echo "$DRUID_URL"; else bash "$ROOT/dev/druid/druid.sh" url; fi
}

seed_metadata() {
  local url slots
  url="$(druid_url)"
  slots="$(pool_slots)"
  [[ "$(curl -sS --max-time 5 "$url/status/health" 2>/dev/null)" == true ]] \
    || log "WARNING: Druid is not answering at $url/status/health: DAG runs will fail until it does (bash dev/druid/druid.sh start)"
  "$AIRFLOW_BIN" connections delete druid_cluster_default >/dev/null 2>&1 || true
  # host and port apart: the UI's Test button sends the stored port (0 when none) and the API refuses a mismatch
  local host="${url%:*}" port="${url##*:}"
  [[ "$port" =~ ^[0-9]+$ && "$host" == *://* ]] || { host="$url"; port=""; }
  "$AIRFLOW_BIN" connections add druid_cluster_default --conn-type druid_cluster --conn-host "$host" \
    ${port:+--conn-port "$port"} >/dev/null &
  "$AIRFLOW_BIN" variables set druid_events_root "$EVENTS_DIR" >/dev/null &
  "$AIRFLOW_BIN" pools set druid_ingest "$slots" \
    "Druid task slots: ${AIRFLOW_DEV_POOL_INGESTIONS:-2} ingestions of dags/specs/events_web.json" --include-deferred >/dev/null &
  local rc=0 j
  for j in $(jobs -p); do wait "$j" || rc=1; done
  ((rc == 0)) || die "setting the connection/variable/pool failed (airflow CLI output above)"
  log "connection druid_cluster_default -> $url; variable druid_events_root; pool druid_ingest = $slots slots (include deferred)"
}

# ---------------------------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------------------------
cmd_start() {
  local t0=$SECONDS svc
  require_venv
  mkdir -p "$VAR_DIR"/{run,log,home}
  if [[ -f "$VAR_DIR/run/configured" && -n "${AIRFLOW_DEV_EXTRA_DAGS:-}" && "$(extra_dags)" != "$AIRFLOW_DEV_EXTRA_DAGS" ]]; then
    die "this deployment ($VAR_DIR) runs with extra DAGs '$(extra_dags)', not '$AIRFLOW_DEV_EXTRA_DAGS': stop it first (bash dev/airflow/airflow.sh stop), or give this one its own AIRFLOW_DEV_VAR_DIR and ports"
  fi
  if [[ ! -f "$VAR_DIR/run/configured" && -n "${AIRFLOW_DEV_EXTRA_DAGS:-}" ]]; then
    [[ -d "$AIRFLOW_DEV_EXTRA_DAGS" && "$AIRFLOW_DEV_EXTRA_DAGS" == /* ]] \
      || die "AIRFLOW_DEV_EXTRA_DAGS=$AIRFLOW_DEV_EXTRA_DAGS: not an absolute path of a directory"
    echo "$AIRFLOW_DEV_EXTRA_DAGS" >"$VAR_DIR/run/extra_dags"
    log "extra DAG bundle 'extra-dags': $AIRFLOW_DEV_EXTRA_DAGS"
  fi
  load_secrets
  use_airflow_env
  pg_start
  [[ "$EXECUTOR" == celery ]] && redis_start
  local need=0 since=0
  for svc in "${SERVICES[@]}"; do service_pid "$svc" >/dev/null || need=1; done
  if ((need)); then
    since="$(date +%s)"
    if ! service_pid api-server >/dev/null && port_open "$API_PORT"; then
      die "port $API_PORT is in use by another process (set AIRFLOW_DEV_API_PORT)"
    fi
    # set up once per start/stop cycle: restarting one killed service (a crash) goes straight to start_service
    if [[ ! -f "$VAR_DIR/run/configured" ]]; then
      printf '{"admin": "%s"}\n' "$ADMIN_PASSWORD" >"$AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"
      local t1=$SECONDS
      "$AIRFLOW_BIN" db migrate >"$(log_file migrate)" 2>&1 || { tail -30 "$(log_file migrate)" >&2; die "airflow db migrate failed (log: $(log_file migrate))"; }
      log "airflow db migrate: $((SECONDS - t1))s"
      generate_events
      seed_metadata
      touch "$VAR_DIR/run/configured"
    fi
    for svc in "${SERVICES[@]}"; do start_service "$svc"; done
  fi
  wait_ready "$since"
  log "ready after $((SECONDS - t0))s: all services healthy, example DAGs parsed"
  cmd_url
}

# processes of start_service and their children: working directory $VAR_DIR (inherited) or the marker in
# their environment (retitled processes overwrite /proc/<pid>/environ, hence both)
marked_pid() {
  [[ "$(readlink "/proc/$1/cwd" 2>/dev/null)" == "$VAR_DIR" ]] \
    || tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" | grep -qxF "AIRFLOW_DEV_DEPLOYMENT=$VAR_DIR"
}

# every process marked_pid knows, one a line
marked_pids() {
  local p
  for p in /proc/[0-9]*; do
    p="${p#/proc/}"
    [[ "$p" == "$$" || "$p" == "$BASHPID" ]] && continue
    marked_pid "$p" && echo "$p"
  done
  return 0
}

cmd_stop() {
  local t0=$SECONDS left
  mkdir -p "$VAR_DIR/run"
  # each service with its process group (dev/lib.sh); what outlives even SIGKILL is named below (marked_pids).
  # celery's warm shutdown lets running tasks finish (up to 30 s) after nothing new is scheduled
  STOP_GROUPS=1 stop_services 30 scheduler triggerer triggerer-1 triggerer-2 dag-processor || true
  STOP_GROUPS=1 stop_services 30 worker-1 worker-2 || true
  STOP_GROUPS=1 stop_services 30 api-server || true
  redis_stop
  left="$(marked_pids | tr '\n' ' ')"
  if [[ -n "${left// /}" ]]; then
    log "processes of this deployment outside the service groups: $left: TERM, then KILL"
    # shellcheck disable=SC2086
    kill -TERM $left 2>/dev/null || true
    sleep 3
    left="$(marked_pids | tr '\n' ' ')"
    # shellcheck disable=SC2086
    [[ -z "${left// /}" ]] || kill -KILL $left 2>/dev/null || true
  fi
  pg_stop
  rm -f "$VAR_DIR/run/configured" "$VAR_DIR/run/extra_dags"
  left="$(marked_pids | tr '\n' ' ')"
  [[ -z "${left// /}" ]] || die "still running after stop: $left"
  log "stopped in $((SECONDS - t0))s; no process of this deployment is left"
}

cmd_status() {
  local svc pid rc=0 port mem tot_rss=0 tot_pss=0
  load_secrets
  PG_BIN="$(pg_bin_dir 2>/dev/null)" || PG_BIN=""
  resolve_pg_dir
  if pg_running; then
    read -r -a mem <<<"$(mem_mb $(pg_pids))"
    tot_rss=$((tot_rss + mem[0])); tot_pss=$((tot_pss + mem[1]))
    printf '%-14s pid %-8s port %-5s %-10s rss %5s MB  pss %5s MB\n' postgres "$(head -1 "$PG_DIR/data/postmaster.pid")" "$PG_PORT" running "${mem[0]}" "${mem[1]}"
  else
    printf '%-14s %-12s port %-5s stopped\n' postgres - "$PG_PORT"; rc=1
  fi
  if [[ "$EXECUTOR" == celery ]]; then
    if pid="$(service_pid redis)"; then
      read -r -a mem <<<"$(group_mem_mb "$pid")"
      tot_rss=$((tot_rss + mem[0])); tot_pss=$((tot_pss + mem[1]))
      printf '%-14s pid %-8s port %-5s %-10s rss %5s MB  pss %5s MB\n' redis "$pid" "$REDIS_PORT" running "${mem[0]}" "${mem[1]}"
    else
      printf '%-14s %-12s port %-5s stopped\n' redis - "$REDIS_PORT"; rc=1
    fi
  fi
  local bad
  bad=" $(unhealthy_components) "
  for svc in "${SERVICES[@]}"; do
    port=-; [[ "$svc" == api-server ]] && port="$API_PORT"
    if pid="$(service_pid "$svc")"; then
      local state=healthy key="${svc//-/_}"
      [[ "$svc" == api-server ]] && key=api-server
      [[ "$svc" == triggerer-* ]] && key=triggerer
      [[ "$bad" == *" $key "* ]] && { state=unhealthy; rc=1; }
      local lport owner note=""
      if lport="$(log_server_port "$svc")"; then
        owner="$(port_owner "$lport")"
        if [[ -z "$owner" ]]; then
          state=degraded; rc=1; note="  no log server on :$lport"
        elif [[ "$(ps -o pgid= -p "$owner" | tr -d ' ')" != "$pid" ]]; then
          state=degraded; rc=1; note="  log server :$lport held by pid $owner outside this $svc (a killed one's orphan? restart: stop, start)"
        fi
      fi
      read -r -a mem <<<"$(group_mem_mb "$pid")"
      tot_rss=$((tot_rss + mem[0])); tot_pss=$((tot_pss + mem[1]))
      [[ "$svc" == triggerer-* ]] && note="$note  $(triggerer_beat "$svc")"
      [[ "$svc" == worker-* ]] && ! worker_ready "$svc" && { state=starting; rc=1; }
      printf '%-14s pid %-8s port %-5s %-10s rss %5s MB  pss %5s MB  (%s processes)%s\n' "$svc" "$pid" "$port" "$state" "${mem[0]}" "${mem[1]}" "$(pgrep -g "$pid" | wc -l)" "$note"
    else
      printf '%-14s %-12s port %-5s stopped\n' "$svc" - "$port"; rc=1
    fi
  done
  printf '%-14s %-29s rss %5s MB  pss %5s MB\n' total "" "$tot_rss" "$tot_pss"
  return $rc
}

cmd_logs() {
  mkdir -p "$VAR_DIR/log"
  resolve_pg_dir
  if [[ $# -ge 1 ]]; then tail -n 200 -F "$(log_file "$1")"; else tail -n 20 -F "$VAR_DIR"/log/*.log "$(log_file postgres)"; fi
}

cmd_url() {
  load_secrets
  echo "Airflow UI: $API_URL   login: admin / $ADMIN_PASSWORD"
}

usage() { sed -n '2,35p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

main() {
  local cmd="${1:-}"
  shift || true
  case "$cmd" in
    start) cmd_start ;;
    prepare)
      pg_bin_dir >/dev/null || install_postgres; pg_bin_dir >/dev/null || die "pg_ctl not found after installing postgresql"
      if [[ "$EXECUTOR" == celery ]]; then redis_bin >/dev/null || install_redis; fi ;;
    stop) cmd_stop ;;
    clean) resolve_pg_dir; if [[ -d "$VAR_DIR" ]]; then cmd_stop; fi; dev_remove_state "$VAR_DIR" "$PG_DIR" ;;
    status) cmd_status ;;
    logs) cmd_logs "$@" ;;
    url) cmd_url ;;
    env) airflow_env ;;
    airflow) require_venv; use_airflow_env; exec "$AIRFLOW_BIN" "$@" ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"
